#!/usr/bin/env bash
# Installs what sstfilter needs from Debian 12 packages (only what is
# missing), then configures and builds everything into build/.
#
#   tools/setup.sh            # used by tools/compare.sh and tools/test.sh
#   BUILD_DIR=/tmp/b tools/setup.sh
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
PACKAGES=(librocksdb-dev rocksdb-tools libleveldb-dev libgtest-dev
          libgflags-dev libsnappy-dev libxxhash-dev cmake g++ make python3
          gnuplot-nox clang libclang-rt-14-dev)

"$ROOT/tools/install_packages.sh" "${PACKAGES[@]}"

echo "== building sstfilter in $BUILD_DIR" >&2
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
      ${SSTFILTER_CMAKE_ARGS:-} >/dev/null
# SETUP_TARGETS: build only these targets (default: everything).
targets=()
for t in ${SETUP_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$BUILD_DIR" -j "$(nproc)" "${targets[@]}" >&2
