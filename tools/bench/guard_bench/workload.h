// guard_bench's workloads: one named loop of operations, run on the
// guarded or the unguarded side, and the helpers that pick and summarise
// them.

#pragma once

#include <rocksdb/db.h>

#include <algorithm>
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
