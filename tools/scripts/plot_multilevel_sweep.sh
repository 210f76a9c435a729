#!/bin/sh
# Draws tools/bench/multilevel_sweep.py's CSV: data-block reads per 1000 missing
# lookups (readmissing on the multi-level db_bench shape) against total
# filter bytes/key, log scale, one line per filter and allocation: built-in
# Bloom, sstfilter.bloom, sstfilter.cuckoo and sstfilter.fuse each uniform
# and monkey.
# Lower-left is better. Writes <OUT_DIR>/<name>.png, <name> the CSV's file
# name without .csv.
#
#   tools/bench/multilevel_sweep.py --csv docs/charts/multilevel_sweep.csv
#   tools/scripts/plot_multilevel_sweep.sh docs/charts/multilevel_sweep.csv
#
# Usage: plot_multilevel_sweep.sh CSV [OUT_DIR]   (OUT_DIR: docs/charts)
# Needs gnuplot with the pngcairo terminal: Debian gnuplot-nox.
set -eu

. "$(dirname "$0")/plot_common.sh"
plot_args "" "$@"
c_filter=$(col filter); c_alloc=$(col allocation)
c_bytes=$(col filter_bytes_per_key); c_reads=$(col data_reads_per_1k_miss)

# One series per filter+allocation, rows sorted by memory within each.
data=$(mktemp)
trap 'rm -f "$data"' EXIT
tail -n +2 "$csv" | awk -F, -v f="$c_filter" -v a="$c_alloc" '{ k = $f; gsub(/ /, "-", k); print k ":" $a "," $0 }' |
  sort -t, -k1,1 -k"$((c_bytes + 1))","$((c_bytes + 1))"g >"$data"
series=$(cut -d, -f1 "$data" | awk '!seen[$0]++' | tr '\n' ' ')

gnuplot <<EOF
file = "$data"
series = "$series"
set datafile separator ","
set grid
set key inside top right
set logscale y
set terminal pngcairo size 1100,750 font "DejaVu Sans,11"
set output "$out_dir/$name.png"
set title "Multi-level tree (L0 + 3 levels), readmissing: data-block reads vs filter memory"
set xlabel "total filter bytes/key (all SSTs' filter blocks / all entries)"
set ylabel "data-block reads per 1000 missing lookups (block-cache misses)"
colors = "#000000 #e69f00 #d55e00 #56b4e9 #0072b2 #8fbc8f #009e73"
color(i) = word(colors, (i - 1) % words(colors) + 1)
name(i) = word(series, i)
is_monkey(i) = strstrt(name(i), "monkey") > 0
y_if(i) = strcol(1) eq name(i) && column($((c_reads + 1))) > 0 ? column($((c_reads + 1))) : 1/0
plot for [i=1:words(series)] file using $((c_bytes + 1)):(y_if(i)) \
       title name(i) noenhanced \
       with linespoints lw 2 pt i ps 1.3 lc rgb color(i) dt 1+is_monkey(i)
EOF
echo "$out_dir/$name.png"
