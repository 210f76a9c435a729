// FilterBuilder's members (filter.h): the builder writes what the planner
// plans, so they live above the planner (planner.h), while the interface
// sits below every kind.

#include <algorithm>

#include "filters/filter.h"
#include "filters/filter_plan.h"
#include "filters/planner.h"
#include "filters/small_filter.h"

namespace sstfilter {

size_t FilterBuilder::MaxKeysForSize(size_t bytes) const {
  if (FilterSize(1) > bytes) return 0;
  // FilterSize grows with the key count; find the last count that fits.
  size_t lo = 1, hi = std::max<size_t>(2, bytes * 8);
  while (FilterSize(hi) <= bytes) hi *= 2;
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    (FilterSize(mid) <= bytes ? lo : hi) = mid;
  }
  return lo;
}

size_t FilterBuilder::FilterSize(size_t num_keys) const { return Plan(num_keys).bytes; }

double FilterBuilder::ExpectedFpr(size_t num_keys) const { return Plan(num_keys).expected_fpr; }

double FilterBuilder::FinishedFpr(size_t n) const {
  const FilterPlan own = Plan(n);
  return allow_small_form_ ? WithSmallForm(own, n, own.bytes).expected_fpr : own.expected_fpr;
}

FilterPlan FilterBuilder::FinishingPlan() const {
  const size_t n = hashes_.size();
  const FilterPlan own = Plan(n);
  return allow_small_form_ ? WithSmallForm(own, n, own.bytes) : own;
}

void FilterBuilder::FinishWith(const FilterPlan& plan, std::string* dst) {
  WritePlannedFilter(plan, &hashes_, dst);
  hashes_.clear();
}

void FilterBuilder::Finish(std::string* dst) {
  const FilterPlan plan = FinishingPlan();
  const bool small = plan.kind == kSmallFormKind && AppendSmallFilter(hashes_, plan.bytes, dst);
  if (!small) Write(plan.kind == kSmallFormKind ? Plan(hashes_.size()) : plan, &hashes_, dst);
  hashes_.clear();
}

void FilterBuilder::Write(const FilterPlan& plan, std::vector<uint64_t>* hashes,
                          std::string* dst) const {
  WritePlannedFilter(plan, hashes, dst);
}

}  // namespace sstfilter
