#include "progress.h"

#include <cstdio>

namespace filter_bench {
namespace {
constexpr double kQuietSeconds = 3;
constexpr double kIntervalSeconds = 5;
}  // namespace

void Progress::Step(const std::string& what, double work) {
  const double now = clock_.Seconds();
  const double finished = done_;
  done_ += work;
  if (now < kQuietSeconds || now - last_print_ < kIntervalSeconds) return;
  last_print_ = now;
  std::fprintf(stderr, "filter_bench: %3.0f%% after %.0f s", 100.0 * finished / total_, now);
  if (finished > 0) {
    // Assumes the remaining work goes at the rate the finished work did.
    std::fprintf(stderr, ", about %.0f s left", now * (total_ - finished) / finished);
  }
  std::fprintf(stderr, ": %s\n", what.c_str());
}

void Progress::Say(const std::string& message) {
  std::fprintf(stderr, "filter_bench: %s\n", message.c_str());
}

}  // namespace filter_bench
