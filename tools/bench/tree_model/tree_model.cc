// tree_model: what the filter model expects of one LSM tree's filters.
//
//   tree_model < tree
//
// The tree, one item a line:
//   budget <type> <bits/key>            the configured filter, e.g. "budget cuckoo 10"
//   run <keys> <files> <filter bytes>   a sorted run: an L0 file, or a level
//   range <smallest> <largest> <keys>   one file of the run above: its user
//                                       keys in hex, and its keys
// Prints one line:
//   actual=<F> optimum=<F> uniform=<F> best=<F> bits_per_key=<B>
// then one per run, in input order (optimum_* as `optimum` splits them):
//   run keys=<K> files=<N> probes=<P> bits=<B> fpr=<F> optimum_bits=<B> optimum_fpr=<F>
// each F an expected count of false positives per absent lookup. A lookup
// probes a run where one of its files holds the key in its range: P is the
// share of lookups, drawn as the largest run's keys, that do so, never less
// than the run's share of the keys, as PlanForTree counts it
// (probe_share.h); 1 for a run given no ranges, or where no run has any.
// Each run's expected FPR counts P times in:
//   actual   the runs' filters as they are: each run rated at its bits/key
//            on its curve (below);
//   optimum  the least that any split of the same bytes among the runs
//            can expect, on the same curves;
//   uniform  every file at the budget, as allocation=uniform builds it;
//   best     the least any split of uniform's bytes can expect: the floor
//            of what a level-aware allocation can reach at equal memory.
// A run's curve is the lower convex hull of (bits/key written, expected
// FPR) over every filter the planner can write at that run's file sizes
// (ExpectedRunCost: the budget's type and Bloom, 1/16 bit apart). Rating
// a run on its hull is the best its bytes can do, so actual/optimum
// measures only how the bytes were split among the runs; the hull is
// piecewise linear and convex, so the optimum is exact (a greedy walk down
// the steepest segments).

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "allocation/fpr_hull.h"
#include "allocation/probe_share.h"
#include "allocation/tree_allocation.h"
#include "filters/filter_spec.h"

namespace sstfilter {
namespace {

struct Point {
  double bits;  // written, per key
  double fpr;
};

struct Run {
  double keys = 0;
  double files = 0;
  double bytes = 0;
  std::vector<FileRange> ranges;
  double probes = 1;
  std::vector<Point> hull;
  Point optimum;  // where Optimum puts it
};

std::vector<Point> Hull(const FilterSpec& budget, const Run& run) {
  std::vector<Point> grid;
  const FilterType types[] = {budget.type, FilterType::kBloom};
  for (FilterType type : types) {
    const double hi = std::min(MaxBitsPerKey(type), FprGridEnd(budget.bits_per_key));
    for (double b = MinBitsPerKey(type); b <= hi + 1e-9; b += kFprGridStep) {
      const RunCost c = ExpectedRunCost(FilterSpec{type, b}, run.keys, run.files);
      grid.push_back({8 * c.bytes / run.keys, c.fpr});
    }
    if (type == FilterType::kBloom) break;
  }
  std::sort(grid.begin(), grid.end(), [](const Point& a, const Point& b) {
    return a.bits < b.bits || (a.bits == b.bits && a.fpr < b.fpr);
  });
  // Two types' points interleave: one with no lower FPR than a point of
  // fewer bits is never worth its bits.
  std::vector<Point> hull;
  for (const Point& p : grid) {
    if (!hull.empty() && p.fpr >= hull.back().fpr) continue;
    PushOnLowerHull(&hull, p);
  }
  return hull;
}

double RateOnHull(const std::vector<Point>& hull, double bits) {
  if (bits <= hull.front().bits) return hull.front().fpr;
  for (size_t i = 1; i < hull.size(); ++i) {
    if (bits <= hull[i].bits) {
      const Point& a = hull[i - 1];
      const Point& b = hull[i];
      return a.fpr + (bits - a.bits) / (b.bits - a.bits) * (b.fpr - a.fpr);
    }
  }
  return hull.back().fpr;
}

// Least summed FPR over the runs' hulls within `total_bits`; sets each
// run's `optimum`.
double Optimum(std::vector<Run>* runs, double total_bits) {
  struct Segment {
    double slope;  // FPR saved per bit spent
    Run* run;
    size_t to;     // the segment ends at run->hull[to]
  };
  std::vector<Segment> segments;
  double fpr = 0;
  for (Run& r : *runs) {
    r.optimum = r.hull.front();
    fpr += r.probes * r.optimum.fpr;
    total_bits -= r.keys * r.optimum.bits;
    for (size_t i = 1; i < r.hull.size(); ++i) {
      const double bits = r.keys * (r.hull[i].bits - r.hull[i - 1].bits);
      segments.push_back({r.probes * (r.hull[i - 1].fpr - r.hull[i].fpr) / bits, &r, i});
    }
  }
  // Convex hulls: each run's segments come in order of falling slope, so
  // taking all runs' segments by slope walks each hull from its start.
  std::stable_sort(segments.begin(), segments.end(),
                   [](const Segment& a, const Segment& b) { return a.slope > b.slope; });
  for (const Segment& s : segments) {
    if (total_bits <= 0) break;
    const Point& a = s.run->hull[s.to - 1];
    const Point& b = s.run->hull[s.to];
    const double bits = s.run->keys * (b.bits - a.bits);
    const double take = std::min(1.0, total_bits / bits);
    fpr -= take * s.run->probes * (a.fpr - b.fpr);
    total_bits -= take * bits;
    s.run->optimum = {a.bits + take * (b.bits - a.bits), a.fpr + take * (b.fpr - a.fpr)};
  }
  return fpr;
}

// `hex` as bytes; false if it is not hex.
bool FromHex(const std::string& hex, std::string* out) {
  if (hex.size() % 2 != 0) return false;
  out->clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    unsigned int byte = 0;
    if (std::sscanf(hex.c_str() + i, "%2x", &byte) != 1) return false;
    out->push_back(static_cast<char>(byte));
  }
  return true;
}

// Each run's probes: the largest run with ranges is the reference.
void SetProbes(std::vector<Run>* runs) {
  const Run* reference = nullptr;
  double total = 0;
  for (const Run& r : *runs) {
    total += r.keys;
    if (!r.ranges.empty() && (reference == nullptr || r.keys > reference->keys)) reference = &r;
  }
  if (reference == nullptr) return;
  for (Run& r : *runs) {
    if (!r.ranges.empty()) {
      r.probes = PlannedProbeShare(ProbeShare(reference->ranges, r.ranges), r.keys, total);
    }
  }
}

int Main() {
  FilterSpec budget;
  bool have_budget = false;
  std::vector<Run> runs;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string what;
    if (!(in >> what)) continue;
    if (what == "budget") {
      std::string type;
      in >> type >> budget.bits_per_key;
      if (!in || !FilterTypeFromName(type, &budget.type) ||
          !ValidateFilterSpec(budget).empty()) {
        std::fprintf(stderr, "tree_model: bad budget line: %s\n", line.c_str());
        return 2;
      }
      have_budget = true;
    } else if (what == "run") {
      Run r;
      in >> r.keys >> r.files >> r.bytes;
      if (!in || !(r.keys > 0) || !(r.files >= 1) || r.bytes < 0) {
        std::fprintf(stderr, "tree_model: bad run line: %s\n", line.c_str());
        return 2;
      }
      runs.push_back(r);
    } else if (what == "range") {
      std::string smallest, largest;
      FileRange f;
      in >> smallest >> largest >> f.keys;
      if (!in || runs.empty() || !FromHex(smallest, &f.smallest) ||
          !FromHex(largest, &f.largest) || f.largest < f.smallest) {
        std::fprintf(stderr, "tree_model: bad range line: %s\n", line.c_str());
        return 2;
      }
      runs.back().ranges.push_back(f);
    } else {
      std::fprintf(stderr, "tree_model: unknown line: %s\n", line.c_str());
      return 2;
    }
  }
  if (!have_budget || runs.empty()) {
    std::fprintf(stderr, "tree_model: needs a budget line and at least one run line\n");
    return 2;
  }
  for (Run& r : runs) {
    std::sort(r.ranges.begin(), r.ranges.end(),
              [](const FileRange& a, const FileRange& b) { return a.smallest < b.smallest; });
  }
  SetProbes(&runs);
  double actual = 0, uniform = 0, uniform_bits = 0, bits = 0, keys = 0;
  for (Run& r : runs) {
    r.hull = Hull(budget, r);
    actual += r.probes * RateOnHull(r.hull, 8 * r.bytes / r.keys);
    const RunCost at_budget = ExpectedRunCost(budget, r.keys, r.files);
    uniform += r.probes * at_budget.fpr;
    uniform_bits += 8 * at_budget.bytes;
    bits += 8 * r.bytes;
    keys += r.keys;
  }
  const double best = Optimum(&runs, uniform_bits);
  const double optimum = Optimum(&runs, bits);
  std::printf("actual=%.6g optimum=%.6g uniform=%.6g best=%.6g bits_per_key=%.4f\n", actual,
              optimum, uniform, best, bits / keys);
  for (const Run& r : runs) {
    std::printf(
        "run keys=%.0f files=%.0f probes=%.3f bits=%.3f fpr=%.4g optimum_bits=%.3f "
        "optimum_fpr=%.4g\n",
        r.keys, r.files, r.probes, 8 * r.bytes / r.keys, RateOnHull(r.hull, 8 * r.bytes / r.keys),
        r.optimum.bits, r.optimum.fpr);
  }
  return 0;
}

}  // namespace
}  // namespace sstfilter

int main() { return sstfilter::Main(); }
