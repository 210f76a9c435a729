// What a filter build charges to RocksDB's block cache, seen from outside:
// the smallest block cache with strict_capacity_limit, charging
// CacheEntryRole::kFilterConstruction, in which a build writes the same
// bytes as it writes with no cache. Below it the build's charge is refused
// and it falls back (sstfilter's kinds and RocksDB's Ribbon alike to a
// Bloom filter), so the figure is the build's peak charge, to within the
// search's step. Works for any policy that charges that role: sstfilter's
// and RocksDB's built-ins.

#pragma once

#include <cstddef>

#include <rocksdb/filter_policy.h>

#include "../filter_bench/key_gen.h"

namespace build_memory {

// The capacity in bytes, to within `step` bytes; 0 if even no capacity
// changes the bytes (the policy charges nothing), and `ceiling` if even
// that capacity is refused.
size_t SmallestStrictCache(const rocksdb::FilterPolicy& policy, const filter_bench::KeyBatch& keys,
                           size_t step, size_t ceiling);

}  // namespace build_memory
