#!/usr/bin/env bash
# The README's main quick-start command: set-up (Debian packages, build),
# then sstfilter's filters against RocksDB's built-in Bloom and Ribbon filters
# on stock db_bench, one OPTIONS file per config from db_bench_configs/. Prints
# a markdown table on stdout, progress on stderr; about 3-4 minutes on 2 cores.
#
#   tools/compare.sh                               # every config, scale 1
#   tools/compare.sh --scale 10 --markdown-out results.md
#   tools/compare.sh --configs sstfilter_cuckoo_12 # plus its Bloom baseline
#   tools/compare.sh --help                        # all flags, column legend
#
# SKIP_SETUP=1 skips tools/setup.sh when the build is known to be current.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
if [ "${SKIP_SETUP:-0}" != 1 ]; then
  # Only the plugin is needed here: the first run skips building the tests.
  BUILD_DIR=$BUILD_DIR SETUP_TARGETS="sstfilter sstfilter_check" "$ROOT/tools/setup.sh"
fi
exec python3 "$ROOT/tools/db_bench_compare.py" \
  --plugin "$BUILD_DIR/libsstfilter.so" --check-tool "$BUILD_DIR/tools/sstfilter_check" \
  --work-dir "$BUILD_DIR" "$@"
