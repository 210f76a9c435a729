// Clocks and the statistics filter_bench reports: medians, because one
// repeat disturbed by another process should not move the figure.

#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

namespace filter_bench {

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Median of `v` (mean of the middle two for an even count); 0 if empty.
inline double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  if (v.size() % 2 == 1) return v[mid];
  const double upper = v[mid];
  const double lower = *std::max_element(v.begin(), v.begin() + mid);
  return (lower + upper) / 2;
}

// Median over repeats of a[r] / b[r]. Filters are interleaved within each
// repeat, so per-repeat ratios cancel drift between repeats that a ratio of
// medians would keep. NaN if the sizes differ or a b[r] is not positive.
inline double MedianRatio(const std::vector<double>& a,
                          const std::vector<double>& b) {
  if (a.size() != b.size() || a.empty()) return std::nan("");
  std::vector<double> r;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(b[i] > 0)) return std::nan("");
    r.push_back(a[i] / b[i]);
  }
  return Median(r);
}

// Makes `value` observable so the compiler cannot drop the loop that
// computed it (the figures are also printed, but this costs nothing).
inline void KeepResult(uint64_t value) {
  static volatile uint64_t sink;
  sink = sink + value;
}

}  // namespace filter_bench
