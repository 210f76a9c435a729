// Level-aware filter budgets: Monkey's allocation (Dayan, Athanassoulis,
// Idreos, SIGMOD 2017) over a model of a levelled LSM tree.
//
// A lookup of an absent key probes one filter per sorted run (every L0
// file, one file per deeper level) and reads a data block for each false
// positive, so what it costs is the SUM of those filters' FPRs. At a fixed
// total of bits, that sum is smallest when every run's FPR is proportional
// to its share of the keys (the Lagrangian condition for FPR(b) ~ e^(-a b)):
// the large bottom level gives up a fraction of a bit per key, the small
// upper levels take several more bits each.
//
// SolveAllocation takes the runs' shares (the RocksDB adapter estimates
// them from the files it builds: allocation/level_model.h). It solves
// numerically on the core's own expected-FPR curves, so per run it may
// pick Bloom rather than the configured type where Bloom is the more
// accurate for that run's bits, and it spends exactly the configured
// average bits/key over the shares it is given.
//
// Stateless and deterministic: the same inputs give the same answer.

#pragma once

#include <memory>
#include <string>
#include <vector>

#include "filters/filter_spec.h"

namespace sstfilter {

enum class Allocation {
  kUniform,  // "uniform": bits_per_key for every file (the default)
  kMonkey,   // "monkey": per level, as SolveAllocation says
};

// "uniform", "monkey".
const char* AllocationName(Allocation allocation);

// What one run's files get.
// The bottom level's share of the budget usually falls between two points
// of the FprCurve; a filter sized in between is off the hull (for cuckoo,
// a fingerprint bit short at a lower load, or a Bloom filter: up to 1.7x
// the FPR of the mix). So a fraction `upper_fraction` of its files get
// `upper_spec` and the rest `spec`, which averages exactly the share.
struct LevelFilter {
  FilterSpec spec;         // type (the configured one or Bloom) and bits/key
  double key_share = 0;    // one run's share of the keys
  double expected_fpr = 0; // one run's model FPR (of the mix, if any)
  FilterSpec upper_spec;   // valid only where upper_fraction > 0
  double upper_fraction = 0;
  // The spec of a file, from `u` uniform in [0, 1) (the caller derives it
  // from the file, so the choice is deterministic).
  const FilterSpec& SpecForFile(double u) const {
    return u < upper_fraction ? upper_spec : spec;
  }
  // SpecForFile with u drawn from the file's first key, so that a file
  // rebuilt from the same keys gets the same filter.
  const FilterSpec& SpecForFirstKey(const std::string& first_key) const;
  double BitsPerKey() const {
    return spec.bits_per_key + upper_fraction * (upper_spec.bits_per_key - spec.bits_per_key);
  }
};

// The best expected FPR by bits/key, among the configured type and Bloom
// (only Bloom for a Bloom budget), as the planner rates them in a large
// file (PlanAtScale, planner.h): the lower convex hull of a grid (1/16
// bit) from the smallest valid budget to 3 * budget + 12, the only points
// a Lagrangian solution picks. Immutable once built (about 20 ms): share it.
class FprCurve {
 public:
  struct Point {
    double bits;
    double fpr;
    FilterType type;
  };
  // Requires ValidateFilterSpec(budget).empty().
  explicit FprCurve(const FilterSpec& budget);
  const FilterSpec& budget() const { return budget_; }
  const std::vector<Point>& points() const { return points_; }
  // The best point at exactly `bits`; false if no type accepts it.
  bool BestAt(double bits, Point* point) const;

 private:
  FilterSpec budget_;
  std::vector<Point> points_;
};

// The FprCurve of `budget`, built once per process and shared.
std::shared_ptr<const FprCurve> SharedFprCurve(const FilterSpec& budget);

// `count` sorted runs of `share` of the keys each, each probed by a share
// `probes` of the lookups (a run over part of the key range: probe_share.h).
// A count of 0 plans such a run at the others' multiplier without spending
// the budget on it (a file already counted in its run).
struct RunClass {
  double share = 0;
  int count = 1;
  double probes = 1;
};

// Monkey's allocation over `runs` (shares summing to about 1; the last
// class is the bottom level, which takes whatever the others leave of the
// budget, as a mix of two adjacent curve points, so the average is the
// budget exactly): per class, the filter minimising the false positives
// per lookup, the sum over runs of probes * FPR. Every spec passes
// ValidateFilterSpec.
std::vector<LevelFilter> SolveAllocation(const FprCurve& curve,
                                         const std::vector<RunClass>& runs);

// As above, spending `bits_per_key` on average in place of the curve's
// budget (a caller that counts the bytes files really get, which round
// differently at different sizes, corrects the nominal average with it).
std::vector<LevelFilter> SolveAllocation(const FprCurve& curve, const std::vector<RunClass>& runs,
                                         double bits_per_key);

}  // namespace sstfilter
