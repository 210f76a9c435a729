#!/usr/bin/env bash
# Builds the libFuzzer targets with clang + ASan + UBSan, replays the
# committed seed corpus, then fuzzes each target for SECONDS (default 60),
# one target per core at a time.
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
# shellcheck source=ccache_env.sh
. "$ROOT/tools/scripts/ccache_env.sh"
(cd "$ROOT" && cmake --preset fuzz -B "$BUILD_DIR" "${CCACHE_LAUNCHER_ARGS[@]}" >/dev/null)
TARGETS=(filter_reader filter_roundtrip filter_hashes dynamic_load dynamic_ops)
build_args=()
for target in "${TARGETS[@]}"; do build_args+=(--target "${target}_fuzz"); done
cmake --build "$BUILD_DIR" -j "$(nproc)" "${build_args[@]}" >&2

# One target: replay the committed corpus (regressions), then explore from
# it. Its verdict goes to $OUT/<target>.txt, its log to $OUT/<target>.log.
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
fuzz_one() {
  local target=$1 bin="$BUILD_DIR/tests/fuzz/${1}_fuzz" seeds="$ROOT/tests/fuzz/corpus/${1#filter_}"
  local work="$OUT/$target.corpus" runs
  mkdir -p "$work"
  cp "$seeds"/* "$work"/ 2>/dev/null || true
  "$bin" -runs=0 "$seeds" >"$OUT/$target.log" 2>&1 || return 1
  "$bin" -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 "$work" \
      >"$OUT/$target.log" 2>&1 || return 1
  runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$OUT/$target.log")
  echo "fuzz: ${target}_fuzz ${runs:-?} runs in ${SECONDS_PER_TARGET}s, corpus $(ls "$work" | wc -l) inputs" \
    >"$OUT/$target.txt"
}

# The targets run side by side, one per core; each still gets its full
# SECONDS_PER_TARGET of one core.
declare -A pid
for target in "${TARGETS[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do sleep 1; done
  fuzz_one "$target" & pid[$target]=$!
done
failed=0
for target in "${TARGETS[@]}"; do
  if wait "${pid[$target]}"; then
    cat "$OUT/$target.txt"
  else
    echo "fuzz: ${target}_fuzz FAILED; the end of its log:" >&2
    tail -50 "$OUT/$target.log" >&2
    failed=1
  fi
done
exit "$failed"
