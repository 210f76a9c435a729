#include "level_allocation.h"

#include <algorithm>
#include <cmath>

#include "bloom.h"
#include "cuckoo_filter.h"
#include "fuse_filter.h"

namespace sstfilter {
namespace {

// Key count the FPR curves are evaluated at: a typical SST's.
constexpr size_t kModelKeys = 100000;
// Bits/key grid of the solver.
constexpr double kGridStep = 1.0 / 16;

struct Point {
  double bits;
  double fpr;
  FilterType type;
};

// The best FPR reachable at `bits` among the configured type and Bloom;
// false if neither accepts `bits`.
bool BestAt(FilterType configured, double bits, Point* best) {
  bool found = false;
  for (FilterType type : {configured, FilterType::kBloom}) {
    const FilterSpec spec{type, bits};
    if (!ValidateFilterSpec(spec).empty()) continue;
    const double fpr = ExpectedFprOf(spec);
    if (!found || fpr < best->fpr) *best = Point{bits, fpr, type};
    found = true;
  }
  return found;
}

// One class of runs: `count` runs of `share` of the keys each.
struct RunClass {
  double share;
  int count;
  size_t choice = 0;  // index into the curve
};

// Picks, for Lagrange multiplier `lambda`, each class's point minimising
// fpr + lambda * share * bits; returns the average bits/key spent.
double Choose(const std::vector<Point>& curve, double lambda, std::vector<RunClass>* runs) {
  double spent = 0;
  for (RunClass& r : *runs) {
    double best = 0;
    for (size_t i = 0; i < curve.size(); ++i) {
      const double cost = curve[i].fpr + lambda * r.share * curve[i].bits;
      if (i == 0 || cost < best) {
        best = cost;
        r.choice = i;
      }
    }
    spent += r.count * r.share * curve[r.choice].bits;
  }
  return spent;
}

}  // namespace

const char* AllocationName(Allocation allocation) {
  return allocation == Allocation::kMonkey ? "monkey" : "uniform";
}

bool AllocationFromName(const std::string& name, Allocation* allocation) {
  for (Allocation a : {Allocation::kUniform, Allocation::kMonkey}) {
    if (name == AllocationName(a)) {
      *allocation = a;
      return true;
    }
  }
  return false;
}

double ExpectedFprOf(const FilterSpec& spec) {
  switch (spec.type) {
    case FilterType::kBloom:
      return BloomExpectedFpr(spec.bits_per_key, BloomProbes(spec.bits_per_key));
    case FilterType::kCuckoo:
    case FilterType::kCuckooPlain:
    case FilterType::kCuckooSemiSorted: {
      const CuckooVariant variant =
          spec.type == FilterType::kCuckoo        ? CuckooVariant::kAuto
          : spec.type == FilterType::kCuckooPlain ? CuckooVariant::kPlain
                                                  : CuckooVariant::kSemiSorted;
      return CuckooExpectedFpr(ChooseCuckooShape(kModelKeys, spec.bits_per_key, variant),
                               kModelKeys);
    }
    case FilterType::kFuse:
      return FuseExpectedFpr(kModelKeys, spec.bits_per_key);
  }
  return 1.0;
}

LevelPlan LevelPlan::Solve(const FilterSpec& budget, const LevelShape& requested) {
  LevelShape shape = requested;
  shape.base_level = std::max(1, shape.base_level);
  shape.bottom_level = std::max(shape.base_level, shape.bottom_level);
  shape.fanout = std::isfinite(shape.fanout) && shape.fanout > 1 ? shape.fanout : 10;
  shape.l0_files = std::max(1, shape.l0_files);

  // Key weights: level L is fanout^(L - bottom); L0 weighs as the base level.
  const int levels = shape.bottom_level - shape.base_level + 1;
  std::vector<double> weight(levels);
  double total = std::pow(shape.fanout, shape.base_level - shape.bottom_level);  // L0
  for (int i = 0; i < levels; ++i) {
    weight[i] = std::pow(shape.fanout, shape.base_level + i - shape.bottom_level);
    total += weight[i];
  }
  std::vector<RunClass> runs;
  runs.push_back({weight[0] / shape.l0_files / total, shape.l0_files});
  for (int i = 0; i < levels; ++i) runs.push_back({weight[i] / total, 1});

  // The FPR curve of the best type at each grid point.
  const double hi = std::min(kMaxBitsPerKey, 3 * budget.bits_per_key + 12);
  std::vector<Point> curve;
  for (double bits = kMinBitsPerKey; bits <= hi + 1e-9; bits += kGridStep) {
    Point p;
    if (BestAt(budget.type, bits, &p)) curve.push_back(p);
  }

  // Bisect the multiplier (log scale) for the smallest spend within budget.
  double lo_log = std::log(1e-16), hi_log = std::log(1e6);
  for (int iter = 0; iter < 100; ++iter) {
    const double mid = 0.5 * (lo_log + hi_log);
    if (Choose(curve, std::exp(mid), &runs) > budget.bits_per_key) {
      lo_log = mid;
    } else {
      hi_log = mid;
    }
  }
  Choose(curve, std::exp(hi_log), &runs);

  LevelPlan plan;
  plan.shape_ = shape;
  for (const RunClass& r : runs) {
    const Point& p = curve[r.choice];
    plan.levels_.push_back({FilterSpec{p.type, p.bits}, r.share, p.fpr});
  }
  // The grid leaves a little of the budget unspent: the bottom level, which
  // holds most keys, takes exactly what remains (never below a valid size).
  double upper = 0;
  for (size_t i = 0; i + 1 < runs.size(); ++i) {
    upper += runs[i].count * runs[i].share * plan.levels_[i].spec.bits_per_key;
  }
  LevelFilter& bottom = plan.levels_.back();
  Point p = curve[runs.back().choice];
  const double exact = (budget.bits_per_key - upper) / bottom.key_share;
  if (std::isfinite(exact) && BestAt(budget.type, std::min(exact, kMaxBitsPerKey), &p)) {
    bottom.spec = FilterSpec{p.type, p.bits};
    bottom.expected_fpr = p.fpr;
  }
  return plan;
}

const LevelFilter& LevelPlan::ForLevel(int level) const {
  if (level <= 0) return levels_.front();
  const int i = std::max(level, shape_.base_level) - shape_.base_level + 1;
  return levels_[std::min<size_t>(i, levels_.size() - 1)];
}

double LevelPlan::ModelBitsPerKey() const {
  double bits = levels_.front().key_share * shape_.l0_files * levels_.front().spec.bits_per_key;
  for (size_t i = 1; i < levels_.size(); ++i) {
    bits += levels_[i].key_share * levels_[i].spec.bits_per_key;
  }
  return bits;
}

double LevelPlan::ModelFprSum() const {
  double sum = shape_.l0_files * levels_.front().expected_fpr;
  for (size_t i = 1; i < levels_.size(); ++i) sum += levels_[i].expected_fpr;
  return sum;
}

}  // namespace sstfilter
