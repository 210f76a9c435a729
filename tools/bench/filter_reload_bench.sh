#!/usr/bin/env bash
# What a filter block costs each time RocksDB loads it into a block cache
# that keeps evicting it: the case where sstfilter's reader checksum (XXH3
# over the whole filter, on every load; docs/design/safety.md) could show.
#
# One DB per policy: fillrandom of --keys keys into 64 MiB SSTs, compacted
# (filters of about 1 MiB each at 10 bits/key). Then readmissing with
# cache_index_and_filter_blocks=true and a block cache smaller than the
# filters, so nearly every lookup loads its SST's filter again. Repeats are
# interleaved across policies; medians. Prints a markdown table: ops/s,
# filter loads per lookup, ratio to the built-in Bloom filter measured in
# the same run, and, with perf installed, the share of CPU time spent in
# sstfilter's checksum and in RocksDB's reading of blocks.
#
#   tools/bench/filter_reload_bench.sh                    # Debian's db_bench + LD_PRELOAD
#   tools/bench/filter_reload_bench.sh --rocksdb 9.7.4    # 9.7.4 db_bench, sstfilter in-tree
#   tools/bench/filter_reload_bench.sh --keys 1000000 --reps 3
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KEYS=3000000 READS=20000 REPS=5 CACHE=$((2 << 20)) VERSION=""
while [ $# -gt 0 ]; do
  case "$1" in
    --keys) KEYS=$2; shift ;;
    --reads) READS=$2; shift ;;
    --reps) REPS=$2; shift ;;
    --cache) CACHE=$2; shift ;;
    --rocksdb) VERSION=$2; shift ;;
    *) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
  esac
  shift
done

if [ -n "$VERSION" ]; then
  DB_BENCH="$("$ROOT/tools/scripts/rocksdb_source.sh" "$VERSION" tools)/db_bench"
  PRELOAD="" WORK="$ROOT/build-rocksdb$VERSION/reload_bench"
else
  BUILD_DIR="$ROOT/build" SETUP_TARGETS=sstfilter "$ROOT/tools/scripts/setup.sh"
  DB_BENCH=$(command -v db_bench) PRELOAD="$ROOT/build/libsstfilter.so"
  WORK="$ROOT/build/reload_bench"
fi
rm -rf "$WORK" && mkdir -p "$WORK"
POLICIES=(bloomfilter:10 sstfilter.bloom:10 sstfilter.cuckoo:12)

options_file() {  # policy -> path of an OPTIONS file using it
  local f="$WORK/${1//[:.]/_}.ini"
  cat > "$f" <<EOF
[Version]
  rocksdb_version=7.8.3
  options_file_version=1.1
[DBOptions]
  create_if_missing=true
  max_open_files=-1
  max_background_jobs=2
[CFOptions "default"]
  compression=kSnappyCompression
  write_buffer_size=67108864
  target_file_size_base=67108864
[TableOptions/BlockBasedTable "default"]
  filter_policy=$1
  cache_index_and_filter_blocks=true
  optimize_filters_for_memory=false
  block_size=4096
  format_version=5
EOF
  echo "$f"
}

bench() {  # policy, extra db_bench flags... -> db_bench output
  local policy=$1; shift
  env ${PRELOAD:+LD_PRELOAD=$PRELOAD} "$DB_BENCH" -options_file="$(options_file "$policy")" \
    -db="$WORK/db_${policy//[:.]/_}" -num="$KEYS" -key_size=16 -value_size=100 \
    -bloom_bits=0 "$@" 2> /dev/null
}
read_flags() {
  echo -use_existing_db=true -statistics -benchmarks=readmissing \
       -cache_size="$CACHE" -reads="$READS"
}
ticker() { sed -n "s/^rocksdb\.$1 COUNT : \([0-9]*\).*/\1/p" | head -1; }
ops() { sed -n 's/^readmissing *: .* \([0-9]*\) ops\/sec.*/\1/p' | head -1; }
median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

declare -A RUNS LOADS
for p in "${POLICIES[@]}"; do
  echo "== $p: fillrandom,compact of $KEYS keys" >&2
  bench "$p" -benchmarks=fillrandom,compact -seed=1 > "$WORK/fill_${p//[:.]/_}.log"
done
for ((rep = 0; rep < REPS; ++rep)); do
  for p in "${POLICIES[@]}"; do
    out=$(bench "$p" $(read_flags) -seed=$((100 + rep)))
    o=$(ops <<< "$out") miss=$(ticker block.cache.filter.miss <<< "$out")
    useful=$(ticker bloom.filter.useful <<< "$out")
    [ "${useful:-0}" -gt 0 ] || { echo "$p: no filter answered (useful=0)" >&2; exit 1; }
    RUNS[$p]+="$o " LOADS[$p]=$miss
    echo "   rep $((rep + 1))/$REPS $p: $o ops/s, $miss filter loads" >&2
  done
done

# With perf: one extra recorded run per policy, and the share of its CPU
# samples spent in sstfilter's checksum (XXH3 with sstfilter's seed).
HAVE_PERF=0
if command -v perf > /dev/null && perf record -q -o /dev/null -- true 2> /dev/null; then
  HAVE_PERF=1
  declare -A CHECKSUM_SHARE
  for p in "${POLICIES[@]}"; do
    data="$WORK/perf_${p//[:.]/_}.data"
    perf record -q -o "$data" -- env ${PRELOAD:+LD_PRELOAD=$PRELOAD} "$DB_BENCH" \
      -options_file="$(options_file "$p")" -db="$WORK/db_${p//[:.]/_}" -num="$KEYS" \
      -key_size=16 -value_size=100 -bloom_bits=0 $(read_flags) -seed=99 > /dev/null 2>&1
    CHECKSUM_SHARE[$p]=$(perf report -q -i "$data" --no-children --sort symbol 2> /dev/null |
      awk '/ContentChecksum|XXH3_hashLong_64b_withSeed|XXH3_64bits_withSeed/ {
             gsub("%", "", $1); s += $1 } END {printf "%.1f", s}')
  done
fi

base=$(median <<< "${RUNS[bloomfilter:10]}")
echo "RocksDB $("$DB_BENCH" --version 2>/dev/null | sed -n 's/.*version //p' | head -1),"\
     "$KEYS keys in 64 MiB SSTs, $READS missing-key Gets per run, block cache" \
     "$((CACHE >> 10)) KiB, cache_index_and_filter_blocks=true; medians of $REPS interleaved runs."
echo
if [ "$HAVE_PERF" = 1 ]; then
  echo "| filter_policy | readmissing ops/s | vs built-in | filter loads per Get | CPU in sstfilter's checksum |"
  echo "|---|---:|---:|---:|---:|"
else
  echo "| filter_policy | readmissing ops/s | vs built-in | filter loads per Get |"
  echo "|---|---:|---:|---:|"
fi
for p in "${POLICIES[@]}"; do
  m=$(median <<< "${RUNS[$p]}")
  row="| \`$p\` | $m | $(awk -v a="$m" -v b="$base" 'BEGIN {printf "%.2fx", a / b}') |"
  row+=" $(awk -v l="${LOADS[$p]}" -v r="$READS" 'BEGIN {printf "%.2f", l / r}') |"
  if [ "$HAVE_PERF" = 1 ]; then
    row+=" ${CHECKSUM_SHARE[$p]}% |"
  fi
  echo "$row"
done
if [ "$HAVE_PERF" = 1 ]; then
  echo
  echo "CPU share: perf samples of one extra run per policy, in XXH3 with sstfilter's seed"
  echo "(RocksDB's own XXH3 block checksum, 9.x's default, is unseeded and not counted)."
fi
