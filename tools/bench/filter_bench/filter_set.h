// The filters one filter type builds for a workload (one per workload
// filter), and the builds that produce them.

#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "filter_under_test.h"
#include "workload.h"

namespace filter_bench {

struct FilterSet {
  std::vector<BuiltFilter> filters;  // filters[f] holds workload filter f
  uint64_t bytes = 0;
  double build_seconds = 0;  // summed over the builds alone
  uint64_t digest = 0;       // of every filter's bytes, in order
};

// "cuckoo at 10 bits/key", for messages.
std::string Label(const FilterUnderTest& test);

// Called with the index of each filter just built, the keys it was built
// from, and the filter.
using BuiltHook = std::function<void(size_t f, KeyBatch* keys, BuiltFilter* filter)>;

// Builds the whole workload with one filter type; `hook`, if set, sees each
// filter while its keys are at hand.
FilterSet BuildFilterSet(const FilterUnderTest& test, const Workload& workload,
                         const KeyMaker& maker, const BuiltHook& hook);

// Builds the workload with every type of `tests`, workload filter by
// workload filter, the types taking turns (starting at `rotation`, moving
// one on per filter), so a disturbance of the machine lasting a few builds
// falls on every type; each workload filter's keys are made once. Returns
// one set per test.
std::vector<FilterSet> BuildFilterSetsInterleaved(
    const std::vector<std::unique_ptr<FilterUnderTest>>& tests,
    const Workload& workload, const KeyMaker& maker, size_t rotation);

}  // namespace filter_bench
