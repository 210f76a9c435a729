#include "filter_set.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace filter_bench {
namespace {

// Order-sensitive digest of filter bytes, to see that rebuilding from the
// same keys gives the same bytes.
uint64_t Digest(const rocksdb::Slice& bytes, uint64_t h) {
  for (size_t i = 0; i < bytes.size(); i += 8) {
    uint64_t word = 0;
    std::memcpy(&word, bytes.data() + i, std::min<size_t>(8, bytes.size() - i));
    h = (h ^ word) * 0x100000001b3ULL;
    h ^= h >> 29;
  }
  return SplitMixFinalizer(h ^ bytes.size());
}

void Add(BuiltFilter filter, FilterSet* set) {
  set->bytes += filter.size();
  set->digest = Digest(filter.contents(), set->digest);
  set->filters.push_back(std::move(filter));
}

}  // namespace

std::string Label(const FilterUnderTest& test) {
  char buf[128];
  std::snprintf(buf, sizeof(buf), "%s at %g bits/key", test.name().c_str(),
                test.bits_per_key());
  return buf;
}

FilterSet BuildFilterSet(const FilterUnderTest& test, const Workload& workload,
                         const KeyMaker& maker, const BuiltHook& hook) {
  FilterSet set;
  set.filters.reserve(workload.filters.size());
  KeyBatch keys;
  for (size_t f = 0; f < workload.filters.size(); ++f) {
    MakeFilterKeys(workload, f, maker, &keys);
    Add(test.Build(keys, &set.build_seconds), &set);
    if (hook) hook(f, &keys, &set.filters.back());
  }
  return set;
}

std::vector<FilterSet> BuildFilterSetsInterleaved(
    const std::vector<std::unique_ptr<FilterUnderTest>>& tests,
    const Workload& workload, const KeyMaker& maker, size_t rotation) {
  std::vector<FilterSet> sets(tests.size());
  for (FilterSet& set : sets) set.filters.reserve(workload.filters.size());
  KeyBatch keys;
  for (size_t f = 0; f < workload.filters.size(); ++f) {
    MakeFilterKeys(workload, f, maker, &keys);
    for (size_t k = 0; k < tests.size(); ++k) {
      const size_t i = (k + f + rotation) % tests.size();
      Add(tests[i]->Build(keys, &sets[i].build_seconds), &sets[i]);
    }
  }
  return sets;
}

}  // namespace filter_bench
