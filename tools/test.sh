#!/usr/bin/env bash
# The README's test command, and what CI runs (.ci/run). On a fresh Debian
# 12 machine it installs the packages, builds, and runs, in order:
#   1. every test through CTest (build/)
#   2. every test again under AddressSanitizer + UBSan (build-asan/)
#   3. the concurrency tests under ThreadSanitizer (build-tsan/)
#   4. the libFuzzer targets: seed-corpus replay, then FUZZ_SECONDS each
# Stops at the first failure. `tools/test.sh --quick` runs step 1 only.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
QUICK=0
[ "${1:-}" = "--quick" ] && QUICK=1
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

step "1/4 tests (build/)"
BUILD_DIR="$ROOT/build" "$ROOT/tools/setup.sh"
run_ctest "$ROOT/build"
if [ "$QUICK" -eq 1 ]; then summary; exit 0; fi

step "2/4 tests under ASan+UBSan (build-asan/)"
BUILD_DIR="$ROOT/build-asan" BUILD_TYPE=RelWithDebInfo \
  SSTFILTER_CMAKE_ARGS="-DSSTFILTER_SANITIZE=address,undefined -DSSTFILTER_BUILD_TOOLS=OFF" \
  "$ROOT/tools/setup.sh"
ASAN_OPTIONS=detect_leaks=1 run_ctest "$ROOT/build-asan"

step "3/4 concurrency tests under TSan (build-tsan/)"
BUILD_DIR="$ROOT/build-tsan" BUILD_TYPE=RelWithDebInfo \
  SSTFILTER_CMAKE_ARGS="-DSSTFILTER_SANITIZE=thread -DSSTFILTER_BUILD_TOOLS=OFF -DSSTFILTER_WITH_LEVELDB=OFF" \
  SETUP_TARGETS="rocksdb_concurrency_test" "$ROOT/tools/setup.sh"
TSAN_OPTIONS="suppressions=$ROOT/tests/tsan.supp ${TSAN_OPTIONS:-}" \
  run_ctest "$ROOT/build-tsan" -R Concurrency

step "4/4 fuzzing"
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60} "$ROOT/tools/fuzz.sh" | tee -a "$SUMMARY"
summary
