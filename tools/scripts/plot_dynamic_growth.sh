#!/bin/sh
# Draws dynamic_bench --csv output (the growth sweep) as two charts:
#   <name>_bits.png  bits/key against keys (log scale): the dynamic filter,
#                    the static sstfilter cuckoo at the same FPR, 1.5x the
#                    static (the issue's bound at every size), and the
#                    classic power-of-two 12-bit cuckoo filter.
#   <name>_fpr.png   measured and expected FPR of the dynamic filter against
#                    keys, with the target.
#
#   build/tools/dynamic_bench --csv=docs/charts/dynamic_growth.csv
#   tools/scripts/plot_dynamic_growth.sh docs/charts/dynamic_growth.csv
#
# Usage: plot_dynamic_growth.sh CSV [OUT_DIR]   (OUT_DIR: docs/charts)
# Needs gnuplot with the pngcairo terminal: Debian gnuplot-nox.
set -eu
. "$(dirname "$0")/plot_common.sh"
plot_args "" "$@"
k=$(col keys); d=$(col dynamic_bits_per_key); s=$(col static_bits_per_key)
c=$(col classic_bits_per_key); f=$(col dynamic_fpr); e=$(col expected_fpr); t=$(col target_fpr)
gnuplot <<GP
set datafile separator ','
set key top right
set logscale x
set grid
set xlabel 'keys inserted (growth from the first row)'
set terminal pngcairo size 900,520
set output '$out_dir/${name}_bits.png'
set ylabel 'bits per key'
set yrange [0:*]
plot '$csv' every ::1 using $k:$d with linespoints title 'dynamic cuckoo', \
     '' every ::1 using $k:$s with lines title 'static sstfilter.cuckoo, same FPR', \
     '' every ::1 using $k:(1.5*\$$s) with lines dashtype 2 title '1.5x static (target)', \
     '' every ::1 using $k:$c with steps title 'classic pow2, 12-bit'
set output '$out_dir/${name}_fpr.png'
set logscale y
set yrange [*:*]
set ylabel 'false-positive rate'
plot '$csv' every ::1 using $k:$f with linespoints title 'dynamic, measured', \
     '' every ::1 using $k:$e with lines title 'dynamic, expected', \
     '' every ::1 using $k:$t with lines dashtype 2 title 'target'
GP
echo "$out_dir/${name}_bits.png $out_dir/${name}_fpr.png"
