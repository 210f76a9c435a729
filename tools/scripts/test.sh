#!/usr/bin/env bash
# The README's test command, and what CI runs (.ci/run). On a fresh Debian
# 12 machine it installs the packages, builds, and runs, in order (each
# step one CMakePresets.json preset; tests are selected by CTest label):
#   0. tools/scripts/check_layers.py: no include points up or across
#      plugin/'s layers
#   1. every test through CTest (preset default, build/)
#   2. every test again under AddressSanitizer + UBSan, float-cast-overflow
#      included (GCC leaves it out of -fsanitize=undefined) (asan)
#   3. the tests labelled concurrency, the guard's multi-writer races
#      included, under ThreadSanitizer against step 4's RocksDB built with
#      TSan (tools/scripts/rocksdb_source.sh tsan, cached like step 4's:
#      about 12 minutes the first time), no suppressions (tsan-source);
#      with `--rocksdb none`, against Debian's uninstrumented librocksdb
#      with tests/tsan.supp, the race tests left out (tsan-debian)
#   4. every test again against RocksDB 9.7.4 built from source
#      (tools/scripts/rocksdb_source.sh, cached outside the clone: about
#      14 minutes the first time, 12 of library and 2 of tools, seconds
#      after), libsstfilter.so linked to its shared library, with that
#      build's db_bench and db_stress with sstfilter in-tree: db_stress
#      crash rounds over our filters, and DBs crossing between 7.8.3 and
#      9.7.4 (source); then the tests labelled static against its static
#      library (source-static). `--rocksdb none` skips this step.
#   5. the libFuzzer targets: seed-corpus replay, then FUZZ_SECONDS each
# Stops at the first failure. `--quick` runs steps 0 and 1 only;
# `--matrix` runs the suite against every RocksDB version instead
# (tools/scripts/test_matrix.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
QUICK=0
SOURCE_ROCKSDB=9.7.4
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1; export SSTFILTER_QUICK=1 ;;  # tests that honour it run one filter
    --matrix) exec "$ROOT/tools/scripts/test_matrix.sh" ;;
    --rocksdb) SOURCE_ROCKSDB=${2:?--rocksdb needs a version}; shift ;;
    *) echo "usage: tools/scripts/test.sh [--quick | --matrix] [--rocksdb 9.7.4|none]" >&2; exit 2 ;;
  esac
  shift
done
JOBS=$(nproc)
# The tests' DBs live in temporary directories: in RAM where there is a
# tmpfs, as RocksDB's own tests prefer (TEST_TMPDIR=/dev/shm), which halves
# the time of the DB tests that flush and compact; the tests that need
# O_DIRECT find a real disk themselves. SSTFILTER_TEST_TMPDIR overrides.
TEST_TMPDIR=${SSTFILTER_TEST_TMPDIR:-/dev/shm}
if [ -d "$TEST_TMPDIR" ] && [ -w "$TEST_TMPDIR" ]; then export TMPDIR=$TEST_TMPDIR; fi

# Each step's wall time, printed with the closing line.
TIMES=""
STEP_START=$SECONDS
STEP_NAME=""
step() {
  end_step
  STEP_NAME=${1%% *}
  STEP_START=$SECONDS
  echo; echo "==== $*" >&2
}
end_step() {
  [ -n "$STEP_NAME" ] && TIMES="$TIMES ${STEP_NAME%%/*}: $((SECONDS - STEP_START)) s;"
  STEP_NAME=""
}

SUMMARY=$(mktemp)
trap 'rm -f "$SUMMARY"' EXIT
run_ctest() {  # test preset (CMakePresets.json)
  (cd "$ROOT" && ctest --preset "$1" -j "$JOBS") | tee -a "$SUMMARY"
}

# One closing line over every step: "N passed, N failed".
summary() {
  local passed
  passed=$(sed -n 's/.*tests passed, 0 tests failed out of \([0-9]*\).*/\1/p' "$SUMMARY" |
           awk '{s += $1} END {print s + 0}')
  passed=$((passed + $(grep -c '^fuzz: ' "$SUMMARY" || true)))
  end_step
  echo "test.sh: $passed passed, 0 failed in $SECONDS s (step${TIMES%;})"
}

# Each step is a CMakePresets.json preset: configure, build and test.
step "0/5 layers: no include points up or across plugin/'s layers"
python3 "$ROOT/tools/scripts/check_layers.py"

step "1/5 tests (build/)"
"$ROOT/tools/scripts/setup.sh"
run_ctest default
if [ "$QUICK" -eq 1 ]; then summary; exit 0; fi

step "2/5 tests under ASan+UBSan (build-asan/)"
PRESET=asan "$ROOT/tools/scripts/setup.sh"
run_ctest asan

step "3/5 concurrency tests under TSan"
export SSTFILTER_ROCKSDB_VERSION=$SOURCE_ROCKSDB
if [ "$SOURCE_ROCKSDB" != none ]; then
  # Every thread runs instrumented code, RocksDB's included, so nothing is
  # suppressed and several writers may race through RocksDB.
  SSTFILTER_ROCKSDB_TSAN_PREFIX=$("$ROOT/tools/scripts/rocksdb_source.sh" "$SOURCE_ROCKSDB" tsan)
  export SSTFILTER_ROCKSDB_TSAN_PREFIX
  PRESET=tsan-source "$ROOT/tools/scripts/setup.sh"
  run_ctest tsan-source
else
  # Debian's librocksdb is not instrumented: tests/tsan.supp names the
  # races TSan reports inside it, and the multi-writer GuardRaceTest and
  # GuardTxnTest stay out (tests/guard/guarded_db_concurrency_test.cc says
  # why).
  PRESET=tsan-debian "$ROOT/tools/scripts/setup.sh"
  run_ctest tsan-debian
fi

if [ "$SOURCE_ROCKSDB" != none ]; then
  step "4/5 tests against RocksDB $SOURCE_ROCKSDB from source (build-rocksdb$SOURCE_ROCKSDB/)"
  "$ROOT/tools/scripts/setup_source.sh" "$SOURCE_ROCKSDB"
  SSTFILTER_ROCKSDB_PREFIX=$("$ROOT/tools/scripts/rocksdb_source.sh" "$SOURCE_ROCKSDB" prefix)
  SSTFILTER_INTREE_TOOLS=$("$ROOT/tools/scripts/rocksdb_source.sh" "$SOURCE_ROCKSDB" tools)
  SSTFILTER_ROCKSDB_SOURCE=$("$ROOT/tools/scripts/rocksdb_source.sh" "$SOURCE_ROCKSDB" src)
  export SSTFILTER_ROCKSDB_PREFIX SSTFILTER_INTREE_TOOLS SSTFILTER_ROCKSDB_SOURCE
  run_ctest source
  # The same RocksDB's static library: sstfilter as a static library with
  # its whole-archive registrar, registration through options strings, and
  # a user's project linked against the installed result (label static).
  PRESET=source-static "$ROOT/tools/scripts/setup.sh"
  run_ctest source-static
fi

step "5/5 fuzzing"
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60} "$ROOT/tools/scripts/fuzz.sh" | tee -a "$SUMMARY"
summary
