// What filter_bench builds and asks: which keys go into which filter, and
// the queries timed against them.
//
// The single regime is one filter of N keys; the SST regime is many filters
// of 10k-100k keys whose total size exceeds the CPU caches, queried in
// random order so that (nearly) every query misses the cache, as a point
// lookup does across the SST files of an LSM tree. Both are a Workload: a
// list of filters, each a run of consecutive positive key ids.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "key_gen.h"

namespace filter_bench {

struct FilterKeys {
  uint64_t first_id = 0;  // the filter holds ids [first_id, first_id + num_keys)
  uint64_t num_keys = 0;
};

struct Workload {
  std::vector<FilterKeys> filters;
  uint64_t total_keys = 0;

  // "1 filter of 1000000 keys" / "1179 filters of 10000-100000 keys, ...".
  std::string Describe() const;
};

Workload SingleFilterWorkload(uint64_t num_keys);

// Filters of uniformly random size in [min_keys, max_keys] until
// total_keys * bits_per_key reaches total_mb megabytes (2^20 bytes). The
// key set depends on bits_per_key only through the count, and is the same
// for every filter type at a given bits_per_key, so all are compared on the
// same keys.
Workload SstWorkload(double bits_per_key, double total_mb, uint64_t min_keys,
                     uint64_t max_keys, uint64_t seed);

// Writes the keys of workload filter `f` into *keys (resized to fit).
void MakeFilterKeys(const Workload& workload, size_t f, const KeyMaker& maker,
                    KeyBatch* keys);

// Queries generated ahead of the timed loop, so that the loop times filter
// work only. Queries come in groups of `group_size` aimed at one filter: 1
// for single queries, the batch size for batched MayMatch (a MultiGet
// consults one SST's filter with the batch of keys that may be in it).
class QueryPlan {
 public:
  enum class Keys { kPositive, kNegative };

  // `num_queries` is rounded down to a whole number of groups (at least
  // one). Each group's filter is uniformly random; positive keys are
  // uniformly random keys of that filter, negative keys are random ids with
  // kNegativeIdBit set.
  QueryPlan(const Workload& workload, const KeyMaker& maker, Keys kind,
            size_t num_queries, size_t group_size, uint64_t seed);

  QueryPlan(const QueryPlan&) = delete;
  QueryPlan& operator=(const QueryPlan&) = delete;

  size_t size() const { return keys_.size(); }
  size_t group_size() const { return group_size_; }
  size_t num_groups() const { return filter_of_group_.size(); }
  uint32_t filter_of_group(size_t g) const { return filter_of_group_[g]; }
  const rocksdb::Slice& key(size_t i) const { return keys_.key(i); }
  // The group_size keys of group g, as batched MayMatch takes them.
  rocksdb::Slice** group_keys(size_t g) { return &key_ptrs_[g * group_size_]; }

 private:
  size_t group_size_;
  KeyBatch keys_;
  std::vector<rocksdb::Slice*> key_ptrs_;
  std::vector<uint32_t> filter_of_group_;
};

}  // namespace filter_bench
