#!/usr/bin/env bash
# allocation=monkey against uniform across many tree shapes, on stock
# db_bench (tools/bench/shape_sweep.py): set-up (Debian packages, build),
# then the sweep. Prints a markdown table on stdout, progress on stderr;
# about 30 minutes on 2 cores for the full set.
#
#   tools/scripts/shape_sweep.sh                    # RocksDB 7.8.3, every shape
#   tools/scripts/shape_sweep.sh --shapes quick     # two shapes, about a minute
#   tools/scripts/shape_sweep.sh --rocksdb 9.7.4    # on RocksDB 9.7.4's db_bench,
#                                                   # sstfilter in-tree (cached build)
#
# SKIP_SETUP=1 skips tools/scripts/setup.sh when the build is known to be current.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ "${1:-}" = "--rocksdb" ]; then
  . "$ROOT/tools/scripts/rocksdb_tools_env.sh"
  use_rocksdb "${2:?--rocksdb needs a version}" "sstfilter_migrate tree_model"
  shift 2
  exec python3 "$ROOT/tools/bench/shape_sweep.py" --plugin "" \
    --db-bench "$ROCKSDB_BIN/db_bench" --sst-dump "$ROCKSDB_BIN/sst_dump" \
    --migrate "$BUILD_DIR/tools/sstfilter_migrate" --tree-model "$BUILD_DIR/tools/tree_model" "$@"
fi
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
if [ "${SKIP_SETUP:-0}" != 1 ]; then
  BUILD_DIR=$BUILD_DIR SETUP_TARGETS="sstfilter sstfilter_migrate tree_model" "$ROOT/tools/scripts/setup.sh"
fi
exec python3 "$ROOT/tools/bench/shape_sweep.py" --plugin "$BUILD_DIR/libsstfilter.so" \
  --migrate "$BUILD_DIR/tools/sstfilter_migrate" --tree-model "$BUILD_DIR/tools/tree_model" "$@"
