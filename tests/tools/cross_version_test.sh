#!/usr/bin/env bash
# A DB written with sstfilter under one RocksDB opens and reads correctly,
# filters used, under the other, both ways: Debian's 7.8.3 db_bench with
# libsstfilter.so preloaded, and a source-built db_bench with sstfilter
# built in (9.7.4).
#
#   cross_version_test.sh <db_bench 7.x> <libsstfilter.so> <db_bench in-tree> <OPTIONS file>
#
# Each direction: fillrandom + compact under one, then readrandom and
# readmissing under the other. Every key the writer's readrandom found is
# found by the reader, readmissing finds nothing, and the reader's filter
# rejected absent keys (rocksdb.bloom.filter.useful > 0).
set -euo pipefail

if [ $# -ne 4 ]; then
  echo "usage: $0 <db_bench 7.x> <libsstfilter.so> <db_bench in-tree> <OPTIONS file>" >&2
  exit 2
fi
OLD=$1 PLUGIN=$(realpath "$2") NEW=$3 CONFIG=$(realpath "$4")
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

TMP=$(mktemp -d -p "$PWD")  # O_DIRECT reads (the config) need a real disk
trap 'rm -rf "$TMP"' EXIT

NUM=20000
COMMON=(-options_file="$CONFIG" -num="$NUM" -key_size=16 -value_size=100 -bloom_bits=0)
READS=(-benchmarks=readrandom,readmissing -use_existing_db=true -statistics
       -reads="$NUM" -cache_size=262144 -seed=2)

run() {  # run old|new <db> <args...>: output in $TMP/out
  local which=$1 db=$2; shift 2
  local cmd=("$NEW")
  [ "$which" = old ] && cmd=(env LD_PRELOAD="$PLUGIN" "$OLD")
  "${cmd[@]}" "${COMMON[@]}" -db="$db" "$@" >"$TMP/out" 2>&1 ||
    { tail -5 "$TMP/out" >&2; fail "db_bench ($which) failed: $*"; }
}
useful() {
  awk '$1 == "rocksdb.bloom.filter.useful" && $2 == "COUNT" { print $4; f = 1 }
       END { if (!f) print 0 }' "$TMP/out"
}
found() {  # found <benchmark>: N from "(N of M found)"
  sed -n "s/^$1 .*(\([0-9]*\) of [0-9]* found).*/\1/p" "$TMP/out"
}

for direction in "old new" "new old"; do
  read -r writer reader <<<"$direction"
  db=$TMP/$writer
  run "$writer" "$db" -benchmarks=fillrandom,compact -seed=1
  run "$writer" "$db" "${READS[@]}"
  expected=$(found readrandom)
  run "$reader" "$db" "${READS[@]}"
  got=$(found readrandom) missing=$(found readmissing) useful=$(useful)
  [ -n "$expected" ] && [ "$expected" -gt 0 ] || fail "$writer found no keys in its own DB"
  [ "$got" = "$expected" ] || fail "written by $writer, read by $reader: found $got keys, expected $expected"
  [ "$missing" = 0 ] || fail "written by $writer, read by $reader: readmissing found $missing"
  [ "$useful" -gt 0 ] || fail "written by $writer, read by $reader: the filter rejected no absent key"
  ok "written by $writer, read by $reader: $got keys found, filter rejected $useful absent keys"
done
echo "PASS: sstfilter DBs written under either RocksDB are read, filtered, under the other"
