// The lower convex hull of a filter's (bits/key, FPR) points: the only
// points a Lagrangian split of a memory budget among runs picks. A point
// inside a step of the FPR curve (cuckoo's falls a fingerprint bit at a
// time) is never worth its bits. Built by the solver's FprCurve
// (level_allocation.cc) and by tools/bench/tree_model, which rates runs on
// hulls of their own.

#pragma once

#include <vector>

namespace sstfilter {

// The grid of bits/key both take their points from: 1/16 bit apart, up to
// FprGridEnd of the budget (or the type's largest, if less).
constexpr double kFprGridStep = 1.0 / 16;
inline double FprGridEnd(double budget_bits_per_key) { return 3 * budget_bits_per_key + 12; }

// Appends p to `hull`, a lower convex hull built from points taken in
// order of bits, after dropping from its end each point that lies on or
// above the segment from the point before it to p. Requires p.fpr below
// hull->back().fpr and p.bits at least hull->back().bits: what to do with
// a point of no lower FPR is the caller's rule (FprCurve drops the earlier
// point, so that its curve reaches the end of its range and a budget past
// where the FPR stops falling is still spent; tree_model drops the later).
// Point: any type with double members `bits` and `fpr`.
template <typename Point>
void PushOnLowerHull(std::vector<Point>* hull, const Point& p) {
  while (hull->size() >= 2) {
    const Point& a = (*hull)[hull->size() - 2];
    const Point& b = hull->back();
    if ((b.fpr - a.fpr) * (p.bits - a.bits) >= (p.fpr - a.fpr) * (b.bits - a.bits)) {
      hull->pop_back();
    } else {
      break;
    }
  }
  hull->push_back(p);
}

}  // namespace sstfilter
