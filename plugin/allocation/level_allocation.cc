#include "allocation/level_allocation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <utility>

#include "allocation/fpr_hull.h"
#include "filters/bits_per_key.h"
#include "filters/planner.h"
#include "format/hash.h"

namespace sstfilter {
namespace {

// Picks, for Lagrange multiplier `lambda`, each class's grid point
// minimising probes * fpr + lambda * share * bits (into choice); returns the average
// bits/key spent.
double Choose(const std::vector<FprCurve::Point>& curve, const std::vector<RunClass>& runs,
              double lambda, std::vector<size_t>* choice) {
  double spent = 0;
  for (size_t r = 0; r < runs.size(); ++r) {
    double best = 0;
    for (size_t i = 0; i < curve.size(); ++i) {
      const double cost =
          runs[r].probes * curve[i].fpr + lambda * runs[r].share * curve[i].bits;
      if (i == 0 || cost < best) {
        best = cost;
        (*choice)[r] = i;
      }
    }
    spent += runs[r].count * runs[r].share * curve[(*choice)[r]].bits;
  }
  return spent;
}

}  // namespace

FprCurve::FprCurve(const FilterSpec& budget) : budget_(budget) {
  const double hi = std::min(kMaxBitsPerKey, FprGridEnd(budget.bits_per_key));
  std::vector<Point> grid;
  for (double bits = kMinBitsPerKey; bits <= hi + 1e-9; bits += kFprGridStep) {
    Point p;
    if (BestAt(bits, &p)) grid.push_back(p);
  }
  // Only the lower convex hull: cuckoo's FPR falls in steps (one more
  // fingerprint bit), and a point inside a step is never worth its bits.
  // Without this, the solver could leave the bottom level just below a
  // step, at twice the FPR, to save a twentieth of a bit.
  // Where the FPR stops falling (the widest fingerprint), the later point
  // of a flat stretch replaces the earlier one, so the curve ends where the
  // grid does.
  for (const Point& p : grid) {
    while (!points_.empty() && p.fpr >= points_.back().fpr) points_.pop_back();
    PushOnLowerHull(&points_, p);
  }
}

bool FprCurve::BestAt(double bits, Point* best) const {
  FilterSpec spec;
  double fpr = 1;
  if (!PlanAtScale(budget_.type, bits, &spec, &fpr)) return false;
  *best = Point{bits, fpr, spec.type};
  return true;
}

std::vector<LevelFilter> SolveAllocation(const FprCurve& curve,
                                         const std::vector<RunClass>& runs) {
  return SolveAllocation(curve, runs, curve.budget().bits_per_key);
}

std::vector<LevelFilter> SolveAllocation(const FprCurve& curve, const std::vector<RunClass>& runs,
                                         double budget) {
  const auto& points = curve.points();
  std::vector<size_t> choice(runs.size(), 0);
  // Bisect the multiplier (log scale) for the smallest spend within budget.
  double lo_log = std::log(1e-16), hi_log = std::log(1e6);
  for (int iter = 0; iter < 60; ++iter) {
    const double mid = 0.5 * (lo_log + hi_log);
    if (Choose(points, runs, std::exp(mid), &choice) > budget) {
      lo_log = mid;
    } else {
      hi_log = mid;
    }
  }
  Choose(points, runs, std::exp(hi_log), &choice);

  std::vector<LevelFilter> out;
  double upper = 0;  // spent by all but the bottom
  for (size_t r = 0; r < runs.size(); ++r) {
    const FprCurve::Point& p = points[choice[r]];
    LevelFilter f;
    f.spec = FilterSpec{p.type, p.bits};
    f.key_share = runs[r].share;
    f.expected_fpr = p.fpr;
    out.push_back(f);
    if (r + 1 < runs.size()) upper += runs[r].count * runs[r].share * p.bits;
  }
  // The grid leaves a little of the budget unspent: the bottom, which holds
  // most keys, takes exactly what remains, as a mix of the two curve points
  // around it (never below a valid size, never above the curve's end).
  LevelFilter& bottom = out.back();
  const double exact = (budget - upper) / (runs.back().count * runs.back().share);
  if (std::isfinite(exact)) {
    size_t hi = 0;
    while (hi < points.size() && points[hi].bits < exact) ++hi;
    if (hi == 0 || hi == points.size()) {
      const FprCurve::Point& p = points[hi == 0 ? 0 : points.size() - 1];
      bottom.spec = FilterSpec{p.type, p.bits};
      bottom.expected_fpr = p.fpr;
    } else {
      const FprCurve::Point& a = points[hi - 1];
      const FprCurve::Point& b = points[hi];
      const double t = (exact - a.bits) / (b.bits - a.bits);
      const double mix_fpr = a.fpr + t * (b.fpr - a.fpr);
      // The one size at `exact` where it is the better (where the curve
      // points are far apart, as around a fuse filter's first size).
      FprCurve::Point p;
      if (curve.BestAt(exact, &p) && p.fpr <= mix_fpr) {
        bottom.spec = FilterSpec{p.type, p.bits};
        bottom.expected_fpr = p.fpr;
      } else {
        bottom.spec = FilterSpec{a.type, a.bits};
        bottom.upper_spec = FilterSpec{b.type, b.bits};
        bottom.upper_fraction = t;
        bottom.expected_fpr = mix_fpr;
      }
    }
  }
  return out;
}

const FilterSpec& LevelFilter::SpecForFirstKey(const std::string& first_key) const {
  const uint64_t h = KeyHash(first_key.data(), first_key.size());
  return SpecForFile(static_cast<double>(h >> 11) * 0x1.0p-53);
}

std::shared_ptr<const FprCurve> SharedFprCurve(const FilterSpec& budget) {
  // About 20 ms to build; a handful of budgets in a process.
  static std::mutex mu;
  static std::map<std::pair<FilterType, double>, std::shared_ptr<const FprCurve>> curves;
  std::lock_guard<std::mutex> lock(mu);
  auto& curve = curves[{budget.type, budget.bits_per_key}];
  if (!curve) curve = std::make_shared<const FprCurve>(budget);
  return curve;
}

const char* AllocationName(Allocation allocation) {
  return allocation == Allocation::kMonkey ? "monkey" : "uniform";
}

}  // namespace sstfilter
