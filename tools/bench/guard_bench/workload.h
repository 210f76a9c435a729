// guard_bench's workloads: one named loop of operations, run on the
// guarded or the unguarded side, how they are timed, and the helpers that
// pick and summarise them.

#pragma once

#include <rocksdb/db.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace guard_bench {

struct Workload {
  const char* name;
  double target;  // minimum guarded/unguarded ratio, 0: reported only
  const char* note;
  // Runs `count` operations on one side.
  std::function<void(rocksdb::DB* db, bool guarded, uint64_t count)> run;
  uint64_t ops;         // per side and round
  bool writes = false;  // changes the DB: sides interleaved in blocks
  // GuardOptions::adaptive_probes of the guarded side (the default: on).
  bool adaptive = true;
};

using Clock = std::chrono::steady_clock;
inline double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Ops/s per round of each side: rate[0] unguarded, rate[1] guarded.
struct Rates {
  std::vector<double> rate[2];
};

// Runs `w` for `rounds` rounds on both sides, the side that goes first
// alternating. Writes alternate in blocks of `write_block` operations (0:
// one block per side), reads in one block per side (workload.cc says why).
Rates Measure(const Workload& w, int rounds, uint64_t write_block, rocksdb::DB* unguarded,
              rocksdb::DB* guarded);

// Prints the table row: median ops/s of each side, the median of the
// rounds' guarded/unguarded ratios, and the target with whether it holds.
void PrintRow(const Workload& w, const Rates& rates);

// Whether `list` (comma-separated prefixes; empty: all) selects `name`.
inline bool Selected(const std::string& list, const std::string& name) {
  if (list.empty()) return true;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    const std::string prefix = list.substr(start, end - start);
    if (!prefix.empty() && name.compare(0, prefix.size(), prefix) == 0) return true;
    start = end + 1;
  }
  return false;
}

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace guard_bench
