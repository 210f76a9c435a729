// Progress lines on stderr, so a long run shows it is alive and how long
// it has left. Silent for the first few seconds (a short run prints
// nothing) and then at most one line every few seconds; stdout stays clean
// for the table.

#pragma once

#include <string>

#include "timing.h"

namespace filter_bench {

class Progress {
 public:
  // `total_work`: the sum of the `work` of every Step to come, in any unit
  // (the time left is estimated from the work done so far).
  explicit Progress(double total_work) : total_(total_work) {}

  // Starts a step of `work` units, described by `what`.
  void Step(const std::string& what, double work);
  // Prints `message` on stderr now, on its own line.
  void Say(const std::string& message);

  double ElapsedSeconds() const { return clock_.Seconds(); }

 private:
  double total_;
  double done_ = 0;
  Stopwatch clock_;
  double last_print_ = 0;
};

}  // namespace filter_bench
