#!/usr/bin/env bash
# Installs what sstfilter needs from Debian 12 packages (only what is
# missing), then configures and builds one of the CMakePresets.json
# configurations.
#
#   tools/scripts/setup.sh                  # preset "default": build/
#   PRESET=asan tools/scripts/setup.sh      # build-asan/, and so on
#   BUILD_DIR=/tmp/b tools/scripts/setup.sh # the default preset, elsewhere
#
# SETUP_TARGETS builds only these targets (default: the preset's);
# SSTFILTER_CMAKE_ARGS adds configure arguments.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PRESET=${PRESET:-default}
PACKAGES=(librocksdb-dev rocksdb-tools libleveldb-dev libgtest-dev
          libgflags-dev libsnappy-dev libxxhash-dev cmake g++ make python3
          gnuplot-nox clang libclang-rt-14-dev ccache libjemalloc-dev)

"$ROOT/tools/scripts/install_packages.sh" "${PACKAGES[@]}"

# shellcheck source=ccache_env.sh
. "$ROOT/tools/scripts/ccache_env.sh"
cd "$ROOT"
dir_args=()
[ -n "${BUILD_DIR:-}" ] && dir_args=(-B "$BUILD_DIR")
echo "== building sstfilter (preset $PRESET${BUILD_DIR:+, in $BUILD_DIR})" >&2
cmake --preset "$PRESET" "${dir_args[@]}" "${CCACHE_LAUNCHER_ARGS[@]}" \
  ${SSTFILTER_CMAKE_ARGS:-} >/dev/null
targets=()
for t in ${SETUP_TARGETS:-}; do targets+=(--target "$t"); done
if [ -n "${BUILD_DIR:-}" ]; then
  cmake --build "$BUILD_DIR" -j "$(nproc)" "${targets[@]}" >&2
else
  cmake --build --preset "$PRESET" -j "$(nproc)" "${targets[@]}" >&2
fi
