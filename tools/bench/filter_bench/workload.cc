#include "workload.h"

#include <algorithm>
#include <sstream>

namespace filter_bench {

std::string Workload::Describe() const {
  std::ostringstream out;
  if (filters.size() == 1) {
    out << "1 filter of " << total_keys << " keys";
    return out.str();
  }
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const FilterKeys& f : filters) {
    lo = std::min(lo, f.num_keys);
    hi = std::max(hi, f.num_keys);
  }
  out << filters.size() << " filters of " << lo << "-" << hi << " keys ("
      << total_keys << " keys)";
  return out.str();
}

Workload SingleFilterWorkload(uint64_t num_keys) {
  Workload w;
  w.filters.push_back(FilterKeys{0, num_keys});
  w.total_keys = num_keys;
  return w;
}

Workload SstWorkload(double bits_per_key, double total_mb, uint64_t min_keys,
                     uint64_t max_keys, uint64_t seed) {
  const double target_keys = total_mb * 1024 * 1024 * 8 / bits_per_key;
  Random64 rng(seed);
  Workload w;
  while (static_cast<double>(w.total_keys) < target_keys) {
    const uint64_t n = min_keys + rng.Uniform(max_keys - min_keys + 1);
    w.filters.push_back(FilterKeys{w.total_keys, n});
    w.total_keys += n;
  }
  return w;
}

void MakeFilterKeys(const Workload& workload, size_t f, const KeyMaker& maker,
                    KeyBatch* keys) {
  const FilterKeys& range = workload.filters[f];
  keys->Resize(range.num_keys);
  for (uint64_t i = 0; i < range.num_keys; ++i) {
    maker.Write(range.first_id + i, keys->mutable_key(i));
  }
}

QueryPlan::QueryPlan(const Workload& workload, const KeyMaker& maker,
                     Keys kind, size_t num_queries, size_t group_size,
                     uint64_t seed)
    : group_size_(group_size) {
  const size_t groups = std::max<size_t>(1, num_queries / group_size);
  keys_.Resize(groups * group_size);
  key_ptrs_.resize(keys_.size());
  filter_of_group_.resize(groups);
  Random64 rng(seed);
  for (size_t g = 0; g < groups; ++g) {
    const auto f =
        static_cast<uint32_t>(rng.Uniform(workload.filters.size()));
    filter_of_group_[g] = f;
    const FilterKeys& range = workload.filters[f];
    for (size_t j = 0; j < group_size; ++j) {
      const size_t i = g * group_size + j;
      const uint64_t id = kind == Keys::kPositive
                              ? range.first_id + rng.Uniform(range.num_keys)
                              : (rng.Next() | kNegativeIdBit);
      maker.Write(id, keys_.mutable_key(i));
      key_ptrs_[i] = keys_.key_ptr(i);
    }
  }
}

}  // namespace filter_bench
