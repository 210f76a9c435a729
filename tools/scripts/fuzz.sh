#!/usr/bin/env bash
# Builds the libFuzzer targets with clang + ASan + UBSan, replays the
# committed seed corpus, then fuzzes each target for SECONDS (default 60).
# Any crash, leak, sanitizer report or false negative fails the script.
# Prints "fuzz: <target> <runs> runs" for each target.
#
#   tools/scripts/fuzz.sh            # 60 s a target
#   SECONDS_PER_TARGET=600 tools/scripts/fuzz.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}
SECONDS_PER_TARGET=${SECONDS_PER_TARGET:-60}

if ! command -v clang++ >/dev/null; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang libclang-rt-14-dev >&2
fi
(cd "$ROOT" && cmake --preset fuzz -B "$BUILD_DIR" >/dev/null)
cmake --build "$BUILD_DIR" -j "$(nproc)" --target filter_reader_fuzz filter_roundtrip_fuzz filter_hashes_fuzz \
  dynamic_load_fuzz dynamic_ops_fuzz >&2

for target in filter_reader filter_roundtrip filter_hashes dynamic_load dynamic_ops; do
  bin="$BUILD_DIR/tests/fuzz/${target}_fuzz"
  seeds="$ROOT/tests/fuzz/corpus/${target#filter_}"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  cp "$seeds"/* "$work"/ 2>/dev/null || true
  # Replay the committed corpus (regressions), then explore from it.
  "$bin" -runs=0 "$seeds" >"$work.replay.log" 2>&1 || { cat "$work.replay.log"; exit 1; }
  "$bin" -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 "$work" \
      >"$work.log" 2>&1 || { tail -50 "$work.log"; exit 1; }
  runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work.log")
  echo "fuzz: ${target}_fuzz ${runs:-?} runs in ${SECONDS_PER_TARGET}s, corpus $(ls "$work" | wc -l) inputs"
  rm -rf "$work" "$work.log" "$work.replay.log"
done
