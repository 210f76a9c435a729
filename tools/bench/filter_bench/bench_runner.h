// The benchmark proper: for each bits/key setting, check every filter
// (no false negatives, FPR within bound), then time builds and queries over
// several repeats, filters interleaved within each repeat.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "filter_under_test.h"
#include "report.h"

namespace filter_bench {

struct BenchOptions {
  std::vector<FilterChoice> filters;  // baseline included
  FilterChoice baseline{kBaselineFilter};  // the row every ratio is against
  std::vector<double> settings;      // bits/key settings
  bool sst_regime = false;
  uint64_t num_keys = 1000000;       // single regime
  uint64_t sst_keys_min = 10000;
  uint64_t sst_keys_max = 100000;
  double sst_total_mb = 64;
  uint64_t fpr_queries = 10000000;
  uint64_t timed_queries = 1000000;
  int batch_size = 32;
  int repeats = 5;
  double fpr_bound_factor = 1.5;
  bool strict = false;  // an FPR out of bound (or other doubt) aborts
  // A fence after every single-key query, so that none overlaps the next:
  // pos/neg columns become latencies (diagnosis; x86-64 only).
  bool fence_queries = false;
  uint64_t seed = 0;
};

// Runs the benchmark; results ordered by setting, then as options.filters.
// Appends to info->warnings what the table must repeat, and sets
// info->workloads. A false negative, an invalid filter setting, or (with
// strict) any warning ends the process with exit status 2 and a message on
// stderr: timing a broken filter would publish a meaningless figure.
std::vector<FilterResult> RunBench(const BenchOptions& options, RunInfo* info);

}  // namespace filter_bench
