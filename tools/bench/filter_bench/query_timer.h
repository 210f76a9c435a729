// Timed query loops. Every filter type answers the same QueryPlan, in
// slices: within a slice the types take turns, so a disturbance of the
// machine (another process, a frequency change) longer than a slice falls
// on all of them alike, and per-repeat ratios stay meaningful on a busy box.
// Each turn starts with an untimed pass over the previous slice's queries:
// without it a turn began with the filter pushed out by the other types'
// turns, and in the single regime (a filter of 1-2 MB, L2 of 1 MB) those
// cold misses made up most of the time (docs/design/rocksdb_integration.md, "filter_bench: warm turns").

#pragma once

#include <cstdint>
#include <vector>

#include "filter_set.h"
#include "workload.h"

namespace filter_bench {

struct QueryTiming {
  std::vector<double> ns;     // per query (per key if batched), per set
  std::vector<uint64_t> hits; // "may match" answers, per set
};

// Single MayMatch calls over `plan` (group size 1) on every set. With
// `fence`, each call waits for the one before it to finish (an x86 lfence
// between them), so the figures are latencies rather than the throughput
// of back-to-back queries that the CPU overlaps.
QueryTiming TimeSingleQueries(std::vector<FilterSet>* sets, const QueryPlan& plan,
                              size_t rotation, bool fence);

// Whether TimeSingleQueries can fence on this build.
bool CanFenceQueries();

// Batched MayMatch calls, one per group of `plan`, on every set.
QueryTiming TimeBatchedQueries(std::vector<FilterSet>* sets, QueryPlan* plan,
                               size_t rotation);

}  // namespace filter_bench
