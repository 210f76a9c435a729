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
  version=${2:?--rocksdb needs a version}
  shift 2
  prefix=$("$ROOT/tools/scripts/rocksdb_source.sh" "$version" prefix)
  bin=$("$ROOT/tools/scripts/rocksdb_source.sh" "$version" tools)
  # sstfilter_check built against the same RocksDB, out of tree, in its
  # own folder (BUILD_DIR names the 7.8.3 build, which this must not
  # reconfigure).
  BUILD_DIR=${ROCKSDB_BUILD_DIR:-$ROOT/build-rocksdb$version}
  if [ "${SKIP_SETUP:-0}" != 1 ]; then
    BUILD_DIR=$BUILD_DIR SETUP_TARGETS="sstfilter_check" \
      SSTFILTER_CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$prefix -DSSTFILTER_WITH_LEVELDB=OFF" \
      "$ROOT/tools/scripts/setup.sh"
  fi
  exec python3 "$ROOT/tools/bench/db_bench_compare.py" --plugin "" \
    --db-bench "$bin/db_bench" --sst-dump "$bin/sst_dump" \
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
