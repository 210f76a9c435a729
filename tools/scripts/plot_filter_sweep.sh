#!/bin/sh
# Draws filter_bench --sweep results (its --csv file) as two charts:
#   <name>_fpr.png    FPR against measured bits/key, log scale, every filter,
#                     with the lower bound no filter can beat: FPR = 2^-bits/key
#                     (a filter needs at least log2(1/FPR) bits per key).
#   <name>_query.png  query time against FPR: single negative MayMatch, and
#                     batched MayMatch per key; lower-left is better.
# <name> is the CSV's file name without .csv.
#
#   build-bench/tools/filter_bench --sweep --csv=docs/charts/filter_sweep_single.csv
#   tools/scripts/plot_filter_sweep.sh docs/charts/filter_sweep_single.csv
#
# Usage: plot_filter_sweep.sh [--svg] CSV [OUT_DIR]   (OUT_DIR: docs/charts)
# Needs gnuplot with the pngcairo (or svg) terminal: Debian gnuplot-nox.
set -eu

format=png
if [ "${1:-}" = "--svg" ]; then format=svg; shift; fi
. "$(dirname "$0")/plot_common.sh"
plot_args "[--svg] " "$@"
c_mode=$(col mode); c_filter=$(col filter); c_bits=$(col bits_per_key)
c_fpr=$(col fpr); c_neg=$(col negative_query_ns)
c_batch=$(col batched_query_ns_per_key); c_bsize=$(col batch_size)
# Filters in the order they first appear; mode and batch size of the run.
filters=$(tail -n +2 "$csv" | cut -d, -f"$c_filter" | awk '!seen[$0]++' | tr '\n' ' ')
mode=$(sed -n 2p "$csv" | cut -d, -f"$c_mode")
batch=$(sed -n 2p "$csv" | cut -d, -f"$c_bsize")
[ -n "$filters" ] || { echo "$0: $csv has no results" >&2; exit 1; }

# Rows regrouped by filter (settings in order within each), so each
# filter's points are consecutive and its line is drawn unbroken.
data=$(mktemp)
trap 'rm -f "$data"' EXIT
head -n 1 "$csv" >"$data"
for f in $filters; do
  awk -F, -v c="$c_filter" -v f="$f" 'NR > 1 && $c == f' "$csv" >>"$data"
done

if [ "$format" = png ]; then
  terminal='pngcairo size 1100,750 font "DejaVu Sans,11"'
  terminal_wide='pngcairo size 1600,700 font "DejaVu Sans,11"'
else
  terminal='svg size 1100,750 font "DejaVu Sans,11" dynamic'
  terminal_wide='svg size 1600,700 font "DejaVu Sans,11" dynamic'
fi

gnuplot <<EOF
file = "$data"
filters = "$filters"
set datafile separator ","
set key autotitle columnhead
set grid
set key inside top right
set logscale y
set format y "10^{%L}"
# Built-ins dashed, sstfilter solid; ribbon's setting is not its size.
is_builtin(f) = strstrt(f, "rocksdb_") == 1
label(f) = f eq "rocksdb_ribbon" ? "rocksdb_ribbon (set at Bloom-equivalent bits/key)" : \
           f eq "rocksdb_bloom" ? "rocksdb_bloom (FastLocalBloom)" : f
colors = "#9400d3 #009e73 #56b4e9 #e69f00 #000000 #d55e00 #0072b2 #cc79a7"
color(i) = word(colors, (i - 1) % words(colors) + 1)
# Only the rows of filter f; FPR 0 (no false positive seen) cannot go on a log axis.
y_if(f, c) = strcol($c_filter) eq f && column(c) > 0 ? column(c) : 1/0

set terminal $terminal
set output "$out_dir/${name}_fpr.$format"
set title "False positive rate vs space ($mode regime): lower is better"
set xlabel "bits/key (measured: filter bytes * 8 / keys)"
set ylabel "false positive rate"
plot for [i=1:words(filters)] file using $c_bits:(y_if(word(filters,i), $c_fpr)) \
       title label(word(filters,i)) noenhanced \
       with linespoints lw 2 pt i ps 1.3 lc rgb color(i) dt 1+is_builtin(word(filters,i)), \
     2**(-x) title "lower bound: FPR = 2^{-bits/key}" \
       with lines lw 2 lc rgb "black" dt 3

set terminal $terminal_wide
set output "$out_dir/${name}_query.$format"
set multiplot layout 1,2 title "Query time vs false positive rate ($mode regime): lower-left is better"
unset logscale y
set format y "%g"
set logscale x
set format x "10^{%L}"
set xlabel "false positive rate"
set key below horizontal maxcols 3
set title "one negative MayMatch"
set ylabel "ns per query"
plot for [i=1:words(filters)] file using (y_if(word(filters,i), $c_fpr)):$c_neg \
       title label(word(filters,i)) noenhanced \
       with linespoints lw 2 pt i ps 1.3 lc rgb color(i) dt 1+is_builtin(word(filters,i))
set title "batched MayMatch, $batch negative keys per call"
set ylabel "ns per key"
plot for [i=1:words(filters)] file using (y_if(word(filters,i), $c_fpr)):$c_batch \
       title label(word(filters,i)) noenhanced \
       with linespoints lw 2 pt i ps 1.3 lc rgb color(i) dt 1+is_builtin(word(filters,i))
unset multiplot
EOF
echo "$out_dir/${name}_fpr.$format"
echo "$out_dir/${name}_query.$format"
