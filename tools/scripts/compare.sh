#!/usr/bin/env bash
# The README's main quick-start command: set-up (Debian packages, build),
# then sstfilter's filters against RocksDB's built-in Bloom and Ribbon filters
# on stock db_bench, one OPTIONS file per config from db_bench_configs/. Prints
# a markdown table on stdout, progress on stderr; about 3-4 minutes on 2 cores.
#
#   tools/scripts/compare.sh                               # every config, scale 1
#   tools/scripts/compare.sh --scale 10 --markdown-out results.md
#   tools/scripts/compare.sh --configs sstfilter_cuckoo_12 # plus its Bloom baseline
#   tools/scripts/compare.sh --multilevel                  # db_bench_configs/multilevel/:
#                                                  # L0 + 3 levels, allocation=monkey
#   tools/scripts/compare.sh --help                        # all flags, column legend
#   tools/scripts/compare.sh --rocksdb 9.7.4               # on RocksDB 9.7.4's db_bench,
#                                                  # built from source with
#                                                  # sstfilter in-tree (cached;
#                                                  # the first build is long)
#
# SKIP_SETUP=1 skips tools/scripts/setup.sh when the build is known to be current.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ "${1:-}" = "--rocksdb" ]; then
  . "$ROOT/tools/scripts/rocksdb_tools_env.sh"
  use_rocksdb "${2:?--rocksdb needs a version}" "sstfilter_check"
  shift 2
  exec python3 "$ROOT/tools/bench/db_bench_compare.py" --plugin "" \
    --db-bench "$ROCKSDB_BIN/db_bench" --sst-dump "$ROCKSDB_BIN/sst_dump" \
    --check-tool "$BUILD_DIR/tools/sstfilter_check" --work-dir "$BUILD_DIR" "$@"
fi
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
if [ "${SKIP_SETUP:-0}" != 1 ]; then
  # Only the plugin is needed here: the first run skips building the tests.
  BUILD_DIR=$BUILD_DIR SETUP_TARGETS="sstfilter sstfilter_check" "$ROOT/tools/scripts/setup.sh"
fi
exec python3 "$ROOT/tools/bench/db_bench_compare.py" \
  --plugin "$BUILD_DIR/libsstfilter.so" --check-tool "$BUILD_DIR/tools/sstfilter_check" \
  --work-dir "$BUILD_DIR" "$@"
