// dynamic_bench's shared pieces (main.cc): the keys' hashes, the figures
// the closing "Targets" table quotes, timing and failure helpers, and the
// filters under test as the flags size them.

#pragma once

#include <gflags/gflags.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/hash.h"
#include "sstfilter/dynamic_cuckoo.h"

DECLARE_double(fpr);
DECLARE_int32(repeats);

namespace dynamic_bench {

using Clock = std::chrono::steady_clock;

// Figures the closing "Targets" table quotes.
struct Summary {
  double ratio_max = 0, ratio_mean = 0, fpr_max = 0;
  // Dynamic (grown or not) / static, worst of positive and negative: in
  // cache at equal FPR, out of cache against a static filter of its bytes.
  double lookup_in_cache = 0, lookup_out_of_cache = 0;
  // Dynamic without growth (0 to 95% load), single inserts; the latency
  // of one dependent load in a buffer of the out-of-cache filter's bytes.
  double insert_mops_in = 0, insert_mops_out = 0, load_ns_out = 0;
  double batch_mops_out = 0;     // InsertHashBatch, out of cache
};
extern Summary g_summary;

// Inline: the timed loops call them.
inline uint64_t PosHash(uint64_t i) { return sstfilter::Mix64(i * 2 + 1); }
inline uint64_t NegHash(uint64_t i) { return sstfilter::Mix64(i * 2 + 2); }

[[noreturn]] void Fail(const std::string& what);

void Say(const std::string& s);

template <typename F>
double NsPerOp(uint64_t ops, F&& body) {
  const auto t0 = Clock::now();
  body();
  return std::chrono::duration<double, std::nano>(Clock::now() - t0).count() /
         static_cast<double>(ops);
}

template <typename F>
double Median(F&& once) {
  std::vector<double> v;
  for (int r = 0; r < std::max(1, FLAGS_repeats); ++r) v.push_back(once());
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A dynamic filter at --fpr with this initial_capacity.
std::unique_ptr<sstfilter::DynamicCuckooFilter> NewDynamic(uint64_t initial);

// Nanoseconds per load of a pointer chase through `bytes` (random cache
// lines, median of --repeats): what one insert out of cache waits at least.
double DependentLoadNs(size_t bytes);

// The static filter's smallest budget (0.05 steps) with expected FPR <= target at n keys.
double StaticBitsPerKeySetting(uint64_t n);
double StaticBitsPerKey(uint64_t n, double setting);

}  // namespace dynamic_bench
