#!/usr/bin/env bash
# The README's test command, and what CI runs (.ci/run). On a fresh Debian
# 12 machine it installs the packages, builds, and runs, in order:
#   1. every test through CTest (build/)
#   2. every test again under AddressSanitizer + UBSan, float-cast-overflow
#      included (GCC leaves it out of -fsanitize=undefined) (build-asan/)
#   3. the concurrency tests, the guard's multi-writer races included,
#      under ThreadSanitizer against step 4's RocksDB version built with
#      TSan (tools/rocksdb_source.sh tsan, cached like step 4's: about 12
#      minutes the first time), no suppressions (build-tsan-rocksdb9.7.4/);
#      with `--rocksdb none`, against Debian's uninstrumented librocksdb
#      with tests/tsan.supp, the race tests left out (build-tsan/)
#   4. every test again against RocksDB 9.7.4 built from source
#      (tools/rocksdb_source.sh, cached outside the clone: about 14 minutes
#      the first time, 12 of library and 2 of tools, seconds after),
#      libsstfilter.so linked to its shared library, then the options and
#      consumer tests against its static library
#      (build-rocksdb9.7.4-static/); plus that build's db_bench and
#      db_stress with sstfilter in-tree: db_stress crash rounds over our
#      filters, and DBs crossing between 7.8.3 and 9.7.4
#      (build-rocksdb9.7.4/). `--rocksdb none` skips this step.
#   5. the libFuzzer targets: seed-corpus replay, then FUZZ_SECONDS each
# Stops at the first failure. `tools/test.sh --quick` runs step 1 only;
# `tools/test.sh --matrix` runs the suite against every RocksDB version
# instead (tools/test_matrix.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
QUICK=0
SOURCE_ROCKSDB=9.7.4
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --matrix) exec "$ROOT/tools/test_matrix.sh" ;;
    --rocksdb) SOURCE_ROCKSDB=${2:?--rocksdb needs a version}; shift ;;
    *) echo "usage: tools/test.sh [--quick | --matrix] [--rocksdb 9.7.4|none]" >&2; exit 2 ;;
  esac
  shift
done
JOBS=$(nproc)

step() { echo; echo "==== $*" >&2; }

SUMMARY=$(mktemp)
trap 'rm -f "$SUMMARY"' EXIT
run_ctest() {  # build dir, extra ctest args...
  local dir=$1; shift
  (cd "$dir" && ctest --output-on-failure -j "$JOBS" "$@") | tee -a "$SUMMARY"
}

# One closing line over every step: "N passed, N failed".
summary() {
  local passed
  passed=$(sed -n 's/.*tests passed, 0 tests failed out of \([0-9]*\).*/\1/p' "$SUMMARY" |
           awk '{s += $1} END {print s + 0}')
  passed=$((passed + $(grep -c '^fuzz: ' "$SUMMARY" || true)))
  echo "test.sh: $passed passed, 0 failed"
}

step "1/5 tests (build/)"
BUILD_DIR="$ROOT/build" "$ROOT/tools/setup.sh"
run_ctest "$ROOT/build"
if [ "$QUICK" -eq 1 ]; then summary; exit 0; fi

step "2/5 tests under ASan+UBSan (build-asan/)"
BUILD_DIR="$ROOT/build-asan" BUILD_TYPE=RelWithDebInfo \
  SSTFILTER_CMAKE_ARGS="-DSSTFILTER_SANITIZE=address,undefined,float-cast-overflow -DSSTFILTER_BUILD_TOOLS=OFF" \
  "$ROOT/tools/setup.sh"
ASAN_OPTIONS=detect_leaks=1 run_ctest "$ROOT/build-asan"

step "3/5 concurrency tests under TSan"
TSAN_TARGETS="rocksdb_concurrency_test dynamic_cuckoo_concurrency_test guarded_db_concurrency_test"
if [ "$SOURCE_ROCKSDB" != none ]; then
  # Every thread runs instrumented code, RocksDB's included, so nothing is
  # suppressed and several writers may race through RocksDB.
  tsan_prefix=$("$ROOT/tools/rocksdb_source.sh" "$SOURCE_ROCKSDB" tsan)
  BUILD_DIR="$ROOT/build-tsan-rocksdb$SOURCE_ROCKSDB" BUILD_TYPE=RelWithDebInfo \
    SSTFILTER_CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$tsan_prefix -DSSTFILTER_ROCKSDB_LINKAGE=static \
      -DSSTFILTER_SANITIZE=thread -DSSTFILTER_BUILD_TOOLS=OFF -DSSTFILTER_WITH_LEVELDB=OFF" \
    SETUP_TARGETS="$TSAN_TARGETS" "$ROOT/tools/setup.sh"
  run_ctest "$ROOT/build-tsan-rocksdb$SOURCE_ROCKSDB" -R "Concurrency|GuardRace"
else
  # Debian's librocksdb is not instrumented: tests/tsan.supp names the
  # races TSan reports inside it, and the multi-writer GuardRaceTest stays
  # out (tests/guarded_db_concurrency_test.cc says why).
  BUILD_DIR="$ROOT/build-tsan" BUILD_TYPE=RelWithDebInfo \
    SSTFILTER_CMAKE_ARGS="-DSSTFILTER_SANITIZE=thread -DSSTFILTER_BUILD_TOOLS=OFF -DSSTFILTER_WITH_LEVELDB=OFF" \
    SETUP_TARGETS="$TSAN_TARGETS" "$ROOT/tools/setup.sh"
  TSAN_OPTIONS="suppressions=$ROOT/tests/tsan.supp ${TSAN_OPTIONS:-}" \
    run_ctest "$ROOT/build-tsan" -R Concurrency
fi

if [ "$SOURCE_ROCKSDB" != none ]; then
  step "4/5 tests against RocksDB $SOURCE_ROCKSDB from source (build-rocksdb$SOURCE_ROCKSDB/)"
  "$ROOT/tools/setup_source.sh" "$SOURCE_ROCKSDB"
  prefix=$("$ROOT/tools/rocksdb_source.sh" "$SOURCE_ROCKSDB" prefix)
  run_ctest "$ROOT/build-rocksdb$SOURCE_ROCKSDB"
  # The same RocksDB's static library: sstfilter as a static library with
  # its whole-archive registrar, registration through options strings, and
  # a user's project linked against the installed result.
  BUILD_DIR="$ROOT/build-rocksdb$SOURCE_ROCKSDB-static" \
    SSTFILTER_CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$prefix -DSSTFILTER_ROCKSDB_LINKAGE=static \
      -DSSTFILTER_WITH_LEVELDB=OFF" \
    SETUP_TARGETS="rocksdb_options_test sstfilter_check" "$ROOT/tools/setup.sh"
  run_ctest "$ROOT/build-rocksdb$SOURCE_ROCKSDB-static" -R "^(OptionsTest|CheckTest|consumer_test|sstfilter_check)"
fi

step "5/5 fuzzing"
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60} "$ROOT/tools/fuzz.sh" | tee -a "$SUMMARY"
summary
