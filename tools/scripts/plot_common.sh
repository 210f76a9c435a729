# Sourced by the tools/plot_*.sh chart scripts: their common argument
# handling and CSV column lookup. Needs gnuplot with the pngcairo terminal
# (Debian gnuplot-nox).

# plot_args USAGE_PREFIX "$@": checks for "CSV [OUT_DIR]" and sets csv,
# out_dir (default docs/charts), name (the CSV's base name).
plot_args() {
  local usage=$1; shift
  if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 ${usage}CSV [OUT_DIR]" >&2
    exit 1
  fi
  csv=$1
  out_dir=${2:-$(cd "$(dirname "$0")/../.." && pwd)/docs/charts}
  command -v gnuplot >/dev/null || { echo "$0: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }
  [ -r "$csv" ] || { echo "$0: cannot read $csv" >&2; exit 1; }
  mkdir -p "$out_dir"
  name=$(basename "$csv" .csv)
}

# col NAME: the 1-based number of CSV column NAME, found by header, so a
# chart survives new columns.
col() {
  head -n 1 "$csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1 | grep . ||
    { echo "$0: no column '$1' in $csv" >&2; exit 1; }
}
