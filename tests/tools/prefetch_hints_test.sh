#!/usr/bin/env bash
# Checks that the library's prefetch hints survive compilation: each
# function named below must contain a prefetch instruction.
#
# Why a test: GCC 12 judged a member function whose only effect is
# __builtin_prefetch to be pure, and dropped every call to it whose result
# was unused. A table's Prefetch helper went that way, so PrefetchHash, the
# bucket prefetches of InsertHash and the eviction search's prefetch did
# nothing, and no test noticed: a hint changes no result, only the time.
# (Fixed by inlining those helpers always.)
#
#   prefetch_hints_test.sh <libsstfilter.a or .so>
# Exits 77 (skipped) off x86-64 or without objdump. Lists only functions
# whose prefetch is in their own body or in helpers always inlined, so
# the compiler's other inlining choices (sanitizer builds) cannot move it.
set -euo pipefail
LIB=$1
if [ "$(uname -m)" != x86_64 ] || ! command -v objdump >/dev/null; then
  echo "skipped: needs x86-64 and objdump"; exit 77
fi
# Function name (as objdump -C prints it, up to the argument list) and
# prefetch instructions in it.
counts=$(objdump -d --no-show-raw-insn -C "$LIB" |
  awk '/^[0-9a-f]+ <.*>:$/ {
         fn = $0; sub(/^[0-9a-f]+ </, "", fn)
         gsub(/\(anonymous namespace\)::/, "", fn); sub(/\(.*/, "", fn)
       }
       /^[ \t]*[0-9a-f]+:[ \t]+prefetch/ { n[fn]++ }
       END { for (f in n) print f "\t" n[f] }')
fail=0
for fn in \
    'sstfilter::DynamicCuckooFilter::PrefetchHash' \
    'sstfilter::dynamic_cuckoo::GrowingFilter::InsertHash' \
    'sstfilter::dynamic_cuckoo::GrowingTable::SearchPlace' \
    'sstfilter::BloomReader::MayMatchBatch' \
    'sstfilter::AppendBloomFilter' \
    'sstfilter::CuckooReader<sstfilter::SemiSortedBucketCodec>::MayMatchBatch' \
    'sstfilter::CuckooReader<sstfilter::PlainBucketCodec>::MayMatchBatch' \
    'sstfilter::FuseReader<4>::MayMatchBatch'; do
  n=$(printf '%s\n' "$counts" | awk -F'\t' -v f="$fn" '$1 == f { print $2 }')
  if [ -z "$n" ]; then
    echo "FAIL: no prefetch instruction in $fn" >&2; fail=1
  else
    echo "ok: $fn ($n)"
  fi
done
exit $fail
