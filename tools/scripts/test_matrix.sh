#!/usr/bin/env bash
# The compatibility matrix (tools/scripts/test.sh --matrix): every RocksDB this
# project builds against, each through the whole CTest suite.
#   - 7.8.3, Debian's packages: the suite in build/ (tools/scripts/setup.sh).
#   - Each version tools/scripts/rocksdb_source.sh pins (--list): its library built
#     from the registry's source and installed (cached outside the clone),
#     the suite built out of tree against it, with rocksdb_abi_test
#     comparing our declaration of RocksDB's internal filter classes with
#     that release's own header; and its db_bench, db_stress, ldb and
#     sst_dump built with sstfilter in-tree, which the suite's in-tree tests
#     run (db_bench over our filters, db_stress crash rounds).
# Writes docs/results/rocksdb_matrix.md. A cold run builds three more
# RocksDB libraries than tools/scripts/test.sh does: about 50 minutes on 2 cores.
#
#   tools/scripts/test.sh --matrix
#   MATRIX_VERSIONS="9.5.0 9.6.1" tools/scripts/test_matrix.sh   # a subset
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VERSIONS=${MATRIX_VERSIONS:-$("$ROOT/tools/scripts/rocksdb_source.sh" --list)}
OUT=$ROOT/docs/results/rocksdb_matrix.md
JOBS=$(nproc)
ROWS=$(mktemp)
trap 'rm -f "$ROWS"' EXIT

step() { echo; echo "==== $*" >&2; }

# Runs the suite in $1 and appends a table row: version, how built, counts.
suite() {  # build dir, version, how
  local log passed failed
  log=$(mktemp)
  (cd "$1" && ctest -j "$JOBS" --output-on-failure) >"$log" 2>&1 || true
  passed=$(sed -n 's/.* tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\2 \1/p' "$log" |
           awk '{print $1 - $2}')
  failed=$(sed -n 's/.* tests passed, \([0-9]*\) tests failed out of.*/\1/p' "$log")
  grep -E '^[0-9]+% tests passed|\(Failed\)|\(Timeout\)' "$log" >&2 || true
  rm -f "$log"
  echo "| $2 | $3 | ${passed:-0} | ${failed:-?} |" >>"$ROWS"
  [ "${failed:-1}" = 0 ]
}

status=0
step "RocksDB 7.8.3 (Debian's packages, build/)"
"$ROOT/tools/scripts/setup.sh"
suite "$ROOT/build" 7.8.3 "Debian package; out of tree, shared" || status=1

for v in $VERSIONS; do
  step "RocksDB $v from source (build-rocksdb$v/)"
  "$ROOT/tools/scripts/setup_source.sh" "$v"
  suite "$ROOT/build-rocksdb$v" "$v" \
    "npm @nxtedition/rocksdb source; out of tree, shared; in-tree db_bench, db_stress" ||
    status=1
done

{
  echo "# RocksDB compatibility matrix"
  echo
  echo "Command: \`tools/scripts/test.sh --matrix\`  "
  echo "Date: $(date -u +%Y-%m-%d), commit $(git -C "$ROOT" rev-parse --short HEAD)$(
    git -C "$ROOT" diff --quiet HEAD -- plugin tests CMakeLists.txt cmake || echo ' (with uncommitted changes)')"
  echo
  echo "Each row is the whole CTest suite built against that RocksDB; for the"
  echo "source builds it includes rocksdb_abi_test (our declaration of the"
  echo "internal filter classes against the release's own header) and the"
  echo "in-tree db_bench and db_stress runs."
  echo
  echo "| RocksDB | how built | tests passed | tests failed |"
  echo "|---|---|---:|---:|"
  cat "$ROWS"
} >"$OUT"
cat "$OUT"
exit "$status"
