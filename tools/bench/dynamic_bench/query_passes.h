// dynamic_bench's lookup timing (main.cc): a table's rows, and the passes
// that time every row's queries in turn.

#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench_util.h"

DECLARE_uint64(timing_ops);

namespace dynamic_bench {

struct Row {
  std::string name;
  double insert = NAN, pos = NAN, neg = NAN, erase = NAN, bpk = NAN;
};

// Query loops: positives over a random order of inserted keys, negatives
// over absent keys; the sum defeats dead-code elimination and is checked.
// Every filter of a table is timed once per pass, and the passes repeat:
// a slow stretch of a noisy machine then slows one pass of every row, not
// every pass of one row, and the medians stay comparable.
struct QueryHashes {
  std::vector<uint64_t> pos, neg;
};

inline QueryHashes MakeQueryHashes(uint64_t n) {
  const uint64_t ops = FLAGS_timing_ops;
  QueryHashes q;  // computed before timing: the loops time lookups only
  q.pos.resize(ops);
  q.neg.resize(ops);
  for (uint64_t i = 0; i < ops; ++i) {
    q.pos[i] = PosHash(sstfilter::Mix64(i) % n);
    q.neg[i] = NegHash(i + (1ULL << 40));
  }
  return q;
}

struct TimedRow {
  TimedRow(Row* r, std::function<void(std::vector<double>*, std::vector<double>*)> p)
      : row(r), pass(std::move(p)) {}
  Row* row;
  std::function<void(std::vector<double>*, std::vector<double>*)> pass;
  std::vector<double> pos, neg;
};

// One pass of `contains` (inlined into its loops) over q's positives and
// negatives, appended to *pos and *neg.
template <typename Q>
std::function<void(std::vector<double>*, std::vector<double>*)> Pass(const QueryHashes* q,
                                                                     const std::string* name,
                                                                     Q contains) {
  return [q, name, contains](std::vector<double>* pos, std::vector<double>* neg) {
    uint64_t hits = 0;
    pos->push_back(NsPerOp(q->pos.size(), [&] {
      for (uint64_t h : q->pos) hits += contains(h);
    }));
    if (hits != q->pos.size()) Fail(*name + ": false negative while timing");
    hits = 0;
    neg->push_back(NsPerOp(q->neg.size(), [&] {
      for (uint64_t h : q->neg) hits += contains(h);
    }));
    if (hits > q->neg.size() / 10) Fail(*name + ": FPR above 10% while timing");
  };
}

inline double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

inline void TimePasses(std::vector<TimedRow>* timed) {
  for (int r = 0; r < std::max(1, FLAGS_repeats); ++r) {
    for (TimedRow& t : *timed) t.pass(&t.pos, &t.neg);
  }
  for (TimedRow& t : *timed) {
    t.row->pos = MedianOf(t.pos);
    t.row->neg = MedianOf(t.neg);
  }
}

}  // namespace dynamic_bench
