#include "query_timer.h"

#include <algorithm>
#include <memory>

#include "timing.h"

namespace filter_bench {
namespace {

// Slices per plan: long enough (tens of thousands of queries) that a slice
// warms the filter it starts on; short enough (milliseconds) that most
// disturbances span several.
constexpr size_t kSlices = 16;

// Runs `loop(set, first_group, end_group)` -> hits for every set over every
// slice of `groups` groups, taking turns, and sums the time per set.
template <typename Loop>
QueryTiming Interleave(std::vector<FilterSet>* sets, size_t groups,
                       size_t keys_per_group, size_t rotation, Loop loop) {
  const size_t n = sets->size();
  std::vector<double> seconds(n, 0);
  QueryTiming timing;
  timing.hits.assign(n, 0);
  const size_t slice = std::max<size_t>(1, groups / kSlices);
  uint64_t warm_hits = 0;
  size_t turn = rotation;
  for (size_t begin = 0; begin < groups; begin += slice, ++turn) {
    const size_t end = std::min(groups, begin + slice);
    // The previous slice's queries (the last slice's, for the first),
    // untimed: each set is timed in the cache state its own queries leave,
    // not in the one the set before it left.
    const size_t warm_begin = begin >= slice ? begin - slice : (groups - 1) / slice * slice;
    const size_t warm_end = std::min(groups, warm_begin + slice);
    for (size_t k = 0; k < n; ++k) {
      const size_t i = (k + turn) % n;
      warm_hits += loop(&(*sets)[i], warm_begin, warm_end);
      Stopwatch timer;
      const uint64_t hits = loop(&(*sets)[i], begin, end);
      seconds[i] += timer.Seconds();
      timing.hits[i] += hits;
    }
  }
  KeepResult(warm_hits);
  for (size_t i = 0; i < n; ++i) {
    KeepResult(timing.hits[i]);
    timing.ns.push_back(seconds[i] * 1e9 / (groups * keys_per_group));
  }
  return timing;
}

// Waits until every earlier instruction has completed (its loads
// included) before any later one starts.
void Fence() {
#if defined(__x86_64__)
  __builtin_ia32_lfence();
#endif
}

template <bool kFence>
QueryTiming TimeSingle(std::vector<FilterSet>* sets, const QueryPlan& plan,
                       size_t rotation) {
  return Interleave(sets, plan.size(), 1, rotation,
                    [&plan](FilterSet* set, size_t begin, size_t end) {
                      uint64_t hits = 0;
                      for (size_t q = begin; q < end; ++q) {
                        hits += set->filters[plan.filter_of_group(q)].MayMatch(
                            plan.key(q));
                        if constexpr (kFence) Fence();
                      }
                      return hits;
                    });
}

}  // namespace

bool CanFenceQueries() {
#if defined(__x86_64__)
  return true;
#else
  return false;
#endif
}

QueryTiming TimeSingleQueries(std::vector<FilterSet>* sets, const QueryPlan& plan,
                              size_t rotation, bool fence) {
  return fence ? TimeSingle<true>(sets, plan, rotation)
               : TimeSingle<false>(sets, plan, rotation);
}

QueryTiming TimeBatchedQueries(std::vector<FilterSet>* sets, QueryPlan* plan,
                               size_t rotation) {
  const int n = static_cast<int>(plan->group_size());
  std::unique_ptr<bool[]> results(new bool[n]);
  return Interleave(
      sets, plan->num_groups(), plan->group_size(), rotation,
      [plan, n, &results](FilterSet* set, size_t begin, size_t end) {
        uint64_t hits = 0;
        for (size_t g = begin; g < end; ++g) {
          set->filters[plan->filter_of_group(g)].MayMatch(
              n, plan->group_keys(g), results.get());
          for (int j = 0; j < n; ++j) hits += results[j];
        }
        return hits;
      });
}

}  // namespace filter_bench
