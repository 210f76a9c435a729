#!/usr/bin/env bash
# A DB written under the built-in Bloom filter, then read by db_bench under
# sstfilter.cuckoo:12: with compat=builtin the old SST's filter still rules
# out absent keys (about as many as under the built-in policy itself);
# without it (the control, docs/policy_switches.md row 1) none.
#
#   db_bench_switch_test.sh <db_bench> <libsstfilter.so | in-tree> <db_bench_configs dir>
#
# Run by CTest; a few seconds. Exits non-zero with a message on failure.
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 <db_bench> <libsstfilter.so | in-tree> <db_bench_configs dir>" >&2
  exit 2
fi
DB_BENCH=$1
PRELOAD=()
[ "$2" = in-tree ] || PRELOAD=(LD_PRELOAD="$(realpath "$2")")
CONFIGS=$(realpath "$3")

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# Buffered reads: the configs' O_DIRECT is not needed here, and tmpfs
# refuses it.
for c in builtin_bloom_10 sstfilter_cuckoo_12; do
  sed 's/^ *use_direct_reads=true/  use_direct_reads=false/' "$CONFIGS/$c.ini" > "$TMP/$c.ini"
done
sed 's/^ *filter_policy=.*/  filter_policy={id=sstfilter.cuckoo;bits_per_key=12;compat=builtin}/' \
  "$TMP/sstfilter_cuckoo_12.ini" > "$TMP/compat_builtin.ini"
grep -q 'compat=builtin' "$TMP/compat_builtin.ini" || fail "could not write the compat=builtin config"

NUM=20000
# bench <config> <args...>: db_bench on the one DB, output in $TMP/out.
bench() {
  local config=$1; shift
  if ! env "${PRELOAD[@]}" "$DB_BENCH" -options_file="$TMP/$config.ini" -db="$TMP/db" \
         -num="$NUM" -key_size=16 -value_size=100 -bloom_bits=0 "$@" >"$TMP/out" 2>&1; then
    cat "$TMP/out" >&2
    fail "db_bench failed ($config): $*"
  fi
}
ticker() {  # ticker <name>: its COUNT in $TMP/out (0 if absent)
  awk -v t="rocksdb.$1" '$1 == t && $2 == "COUNT" { print $4; found = 1 }
                         END { if (!found) print 0 }' "$TMP/out"
}
# useful_under <config>: absent keys the filters ruled out in readmissing.
useful_under() {
  bench "$1" -benchmarks=readmissing -use_existing_db=true -statistics -reads="$NUM" \
    -cache_size=262144 -seed=2
  grep -q '(0 of [0-9]* found)' "$TMP/out" || fail "readmissing found absent keys under $1"
  ticker bloom.filter.useful
}

bench builtin_bloom_10 -benchmarks=fillrandom,compact -seed=1
ssts=("$TMP"/db/*.sst)
[ -e "${ssts[0]}" ] || fail "no SST written"
for sst in "${ssts[@]}"; do
  LC_ALL=C grep -aq 'fullfilter\.rocksdb\.BuiltinBloomFilter' "$sst" ||
    fail "$(basename "$sst") has no built-in filter block"
done
ok "${#ssts[@]} SST(s) written under the built-in Bloom filter"

builtin=$(useful_under builtin_bloom_10)
[ "$builtin" -gt 0 ] || fail "the built-in policy ruled out no absent key"
ok "built-in policy: $builtin absent keys ruled out"

compat=$(useful_under compat_builtin)
[ $((10 * compat)) -ge $((9 * builtin)) ] ||
  fail "compat=builtin ruled out $compat absent keys; the built-in policy $builtin"
ok "sstfilter.cuckoo:12 with compat=builtin: $compat ruled out by the old SSTs' filters"

default=$(useful_under sstfilter_cuckoo_12)
[ "$default" -eq 0 ] ||
  fail "without compat=builtin the built-in SSTs were filtered ($default): this test cannot tell"
ok "control: sstfilter.cuckoo:12 in its own family reads them unfiltered (useful=0)"
echo "PASS: a switch from the built-in Bloom filter with compat=builtin keeps old SSTs filtered"
