#!/usr/bin/env bash
# The README's test command: set-up (packages, build), then every test
# through CTest. Extra arguments go to ctest (e.g. -R cuckoo).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
"$ROOT/tools/setup.sh"
cd "$BUILD_DIR"
ctest --output-on-failure -j "$(nproc)" "$@"
