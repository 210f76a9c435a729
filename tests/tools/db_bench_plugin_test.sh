#!/usr/bin/env bash
# Stock db_bench loads libsstfilter.so with LD_PRELOAD and really uses the
# cuckoo filter named in db_bench_configs/sstfilter_cuckoo_12.ini; and, as a
# control, the same OPTIONS file without LD_PRELOAD silently gives no filter
# (RocksDB drops unregistered policies), so the checks here can fail.
#
#   db_bench_plugin_test.sh <db_bench> <libsstfilter.so> <db_bench_configs dir>
#   db_bench_plugin_test.sh <db_bench> in-tree <db_bench_configs dir>
#
# With "in-tree", db_bench has sstfilter built in (RocksDB built with
# ROCKSDB_PLUGINS=sstfilter): the same checks without LD_PRELOAD, and no
# control runs (there is no db_bench without the plugin to run them on).
#
# Run by CTest; takes a few seconds. Exits non-zero with a message on failure.
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 <db_bench> <libsstfilter.so | in-tree> <db_bench_configs dir>" >&2
  exit 2
fi
DB_BENCH=$1
PLUGIN=""
[ "$2" = in-tree ] || PLUGIN=$(realpath "$2")
CONFIG=$(realpath "$3")/sstfilter_cuckoo_12.ini
SST_DUMP=$(dirname "$DB_BENCH")/sst_dump
[ -x "$SST_DUMP" ] || SST_DUMP=$(command -v sst_dump || true)

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
[ -z "$PLUGIN" ] || [ -f "$PLUGIN" ] || fail "no plugin library at $PLUGIN"
[ -f "$CONFIG" ] || fail "no config at $CONFIG"

# The config reads with O_DIRECT, which tmpfs may refuse: fall back to the
# working directory (CTest's build tree) if the temporary directory does.
TMP=$(mktemp -d)
if ! dd if=/dev/zero of="$TMP/probe" bs=4096 count=1 oflag=direct 2>/dev/null; then
  rm -rf "$TMP"
  TMP=$(mktemp -d -p "$PWD")
fi
trap 'rm -rf "$TMP"' EXIT

NUM=20000
# -bloom_bits=0: db_bench must not put a built-in Bloom filter in place of a
# policy the OPTIONS file names but nobody registered.
COMMON=(-options_file="$CONFIG" -num="$NUM" -key_size=16 -value_size=100
        -bloom_bits=0)
READS=("-benchmarks=readrandom,readmissing" -use_existing_db=true -statistics
       -reads="$NUM" -cache_size=262144 -seed=2)

# bench <preload: yes|no> <db> <args...>: runs db_bench, output in $TMP/out
bench() {
  local preload=$1 db=$2; shift 2
  local env=()
  [ "$preload" = yes ] && [ -n "$PLUGIN" ] && env=(LD_PRELOAD="$PLUGIN")
  if ! env "${env[@]}" "$DB_BENCH" "${COMMON[@]}" -db="$db" "$@" >"$TMP/out" 2>&1; then
    cat "$TMP/out" >&2
    fail "db_bench failed (LD_PRELOAD: $preload): $*"
  fi
}
ticker() { # ticker <name>: its COUNT in $TMP/out (0 if absent)
  awk -v t="rocksdb.$1" '$1 == t && $2 == "COUNT" { print $4; found = 1 }
                         END { if (!found) print 0 }' "$TMP/out"
}
found() { # found <benchmark>: "N M" from "(N of M found)" in $TMP/out
  sed -n "s/^$1 .*(\([0-9]*\) of \([0-9]*\) found).*/\1 \2/p" "$TMP/out"
}
options_policy() { # the filter_policy line of the newest OPTIONS file in a DB
  local newest
  newest=$(cd "$1" && printf '%s\n' OPTIONS-* | sort -t- -k2 -n | tail -1)
  sed -n 's/^ *filter_policy=//p' "$1/$newest"
}

# 1. With the plugin: the cuckoo filter is written and used.
bench yes "$TMP/with" -benchmarks=fillrandom,compact -seed=1
bench yes "$TMP/with" "${READS[@]}"
useful=$(ticker bloom.filter.useful)
positive=$(ticker bloom.filter.full.positive)
true_positive=$(ticker bloom.filter.full.true.positive)
read -r hits reads < <(found readrandom) || fail "no readrandom result line"
read -r missing_hits _ < <(found readmissing) || fail "no readmissing result line"
[ "$useful" -gt 0 ] || fail "with the plugin, rocksdb.bloom.filter.useful is 0:" \
  "the filter answered no query"
ok "with the plugin the filter rejected $useful absent keys"
# About 63% of the keys fillrandom draws are distinct; readrandom draws alike.
if [ "$hits" -eq 0 ] || [ $((2 * hits)) -lt "$reads" ]; then
  fail "readrandom found $hits of $reads keys; expected about 63%"
fi
[ "$missing_hits" -eq 0 ] || fail "readmissing found $missing_hits absent keys"
ok "readrandom found $hits of $reads keys, readmissing none"
# False positive rate over all absent-key queries (bound far above 12 bits/key's).
awk -v fp=$((positive - true_positive)) -v useful="$useful" \
  'BEGIN { fpr = fp / (fp + useful); printf "ok: observed FPR %.3f%%\n", 100 * fpr;
           exit !(fpr < 0.03) }' || fail "observed FPR is 3% or more"

case $(options_policy "$TMP/with") in
  *sstfilter.cuckoo*) ok "the DB's OPTIONS file names sstfilter.cuckoo" ;;
  *) fail "the DB's OPTIONS file says filter_policy=$(options_policy "$TMP/with")" ;;
esac
ssts=("$TMP"/with/*.sst)
[ -e "${ssts[0]}" ] || fail "no SST files in $TMP/with"
for sst in "${ssts[@]}"; do
  LC_ALL=C grep -aq 'fullfilter\.sstfilter' "$sst" ||
    fail "$(basename "$sst") has no fullfilter.sstfilter meta block"
done
ok "${#ssts[@]} SST(s) hold a fullfilter.sstfilter meta block"
if [ -n "$SST_DUMP" ]; then
  "$SST_DUMP" --file="$TMP/with" --show_properties >"$TMP/props" 2>&1 ||
    fail "sst_dump failed: $(tail -3 "$TMP/props")"
  named=$(grep -c '^ *filter policy name: sstfilter\.cuckoo$' "$TMP/props" || true)
  empty=$(grep -c '^ *filter block size: 0$' "$TMP/props" || true)
  if [ "$named" -ne "${#ssts[@]}" ] || [ "$empty" -ne 0 ]; then
    fail "sst_dump: $named of ${#ssts[@]} SSTs name sstfilter.cuckoo," \
         "$empty have an empty filter block"
  fi
  ok "sst_dump: every SST's filter policy is sstfilter.cuckoo"
else
  echo "note: sst_dump not found, SST properties not checked"
fi

if [ -z "$PLUGIN" ]; then
  # The in-tree ldb opens the DB (its OPTIONS name sstfilter.cuckoo) and
  # scans every entry the SSTs' properties count.
  LDB=$(dirname "$DB_BENCH")/ldb
  if [ -x "$LDB" ] && [ -n "$SST_DUMP" ]; then
    entries=$(awk -F: '/^ *# entries:/ { s += $2 } END { print s + 0 }' "$TMP/props")
    scanned=$("$LDB" --db="$TMP/with" --try_load_options scan 2>/dev/null | wc -l)
    [ "$entries" -gt 0 ] && [ "$scanned" -eq "$entries" ] ||
      fail "ldb scanned $scanned keys; the SSTs hold $entries entries"
    ok "ldb scanned all $scanned entries"
  fi
  echo "PASS: db_bench with sstfilter built in uses sstfilter.cuckoo from the OPTIONS file"
  exit 0
fi

# 2. Control: the same OPTIONS file without the plugin runs, silently, with
#    no filter. The checks above would have failed on this DB.
bench no "$TMP/without" -benchmarks=fillrandom,compact -seed=1
bench no "$TMP/without" "${READS[@]}"
control_useful=$(ticker bloom.filter.useful)
read -r control_hits _ < <(found readrandom) || fail "no readrandom result line"
[ "$control_useful" -eq 0 ] ||
  fail "without LD_PRELOAD, bloom.filter.useful is $control_useful, not 0:" \
       "this test cannot tell whether the plugin's filter is in effect"
[ "$(options_policy "$TMP/without")" = nullptr ] ||
  fail "without LD_PRELOAD the DB's OPTIONS file says" \
       "filter_policy=$(options_policy "$TMP/without"), not nullptr"
ok "control: without LD_PRELOAD the same OPTIONS file gave no filter (useful=0)"
[ "$control_hits" -eq "$hits" ] ||
  fail "the filter hid keys: found $hits with it, $control_hits without"
ok "with and without the filter, readrandom found the same $hits keys"

# 3. Stock RocksDB reads the plugin's SSTs without the plugin: it ignores the
#    unknown filter, and finds every key all the same.
bench no "$TMP/with" "${READS[@]}"
read -r stock_hits _ < <(found readrandom) || fail "no readrandom result line"
stock_useful=$(ticker bloom.filter.useful)
if [ "$stock_hits" -ne "$hits" ] || [ "$stock_useful" -ne 0 ]; then
  fail "without the plugin, the plugin's DB gave $stock_hits hits (expected $hits)" \
       "and useful=$stock_useful (expected 0)"
fi
ok "without the plugin, its SSTs are read with no filter and the same $hits hits"
echo "PASS: db_bench uses sstfilter.cuckoo from the OPTIONS file under LD_PRELOAD"
