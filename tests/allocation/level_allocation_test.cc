// Monkey's allocation on the core's FPR models: it spends the budget, gives
// smaller levels more bits, and lowers the summed FPR a lookup pays.

#include "allocation/level_allocation.h"
#include "filters/cuckoo_kind.h"
#include "filters/fuse_kind.h"
#include "filters/planner.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sstfilter {
namespace {

// A levelled tree: `l0_files` L0 runs weighing together as much as the
// first of `levels` levels, each level `fanout` times the one above (what
// RocksDB's level targets aim for). Runs in SolveAllocation's order: L0
// first, the bottom level last.
std::vector<RunClass> Tree(int l0_files, int levels, double fanout) {
  std::vector<double> weight(levels);
  double total = std::pow(fanout, 1 - levels);  // L0
  for (int i = 0; i < levels; ++i) total += weight[i] = std::pow(fanout, i + 1 - levels);
  std::vector<RunClass> runs = {{weight[0] / l0_files / total, l0_files}};
  for (int i = 0; i < levels; ++i) runs.push_back({weight[i] / total, 1});
  return runs;
}

double BitsPerKey(const std::vector<RunClass>& runs, const std::vector<LevelFilter>& plan) {
  double bits = 0;
  for (size_t i = 0; i < runs.size(); ++i) bits += runs[i].share * runs[i].count * plan[i].BitsPerKey();
  return bits;
}

double FprSum(const std::vector<RunClass>& runs, const std::vector<LevelFilter>& plan) {
  double sum = 0;
  for (size_t i = 0; i < runs.size(); ++i) sum += runs[i].count * plan[i].expected_fpr;
  return sum;
}

TEST(LevelAllocationTest, SpendsTheBudgetAndFavoursSmallLevels) {
  const std::vector<RunClass> runs = Tree(4, 4, 10);  // L0, then L3..L6
  for (FilterType type : {kCuckooType, FilterType::kBloom, kFuseType}) {
    for (double bits : {6.0, 10.0, 16.0}) {
      const FilterSpec budget{type, bits};
      const std::vector<LevelFilter> plan = SolveAllocation(FprCurve(budget), runs);
      ASSERT_EQ(plan.size(), runs.size());
      SCOPED_TRACE(std::string(FilterTypeName(type)) + " " + std::to_string(bits));
      EXPECT_NEAR(BitsPerKey(runs, plan), bits, 0.01 * bits);
      // Bottom level below the budget, each level above it at least as many
      // bits as the next (fuse filters' FPR falls in steps of several bits,
      // so two small levels may share one), the base level far more.
      EXPECT_LT(plan[4].spec.bits_per_key, bits);
      for (size_t i = 1; i < 4; ++i) {
        EXPECT_GE(plan[i].spec.bits_per_key, plan[i + 1].spec.bits_per_key) << "run " << i;
      }
      EXPECT_GT(plan[1].spec.bits_per_key, plan[4].spec.bits_per_key + 5);
      EXPECT_GE(plan[0].spec.bits_per_key, plan[1].spec.bits_per_key);
      for (const LevelFilter& f : plan) {
        EXPECT_EQ(ValidateFilterSpec(f.spec), "");
        EXPECT_TRUE(f.spec.type == type || f.spec.type == FilterType::kBloom);
      }
      // Eight runs (4 L0 files, 4 levels): far below eight uniform FPRs.
      EXPECT_LT(FprSum(runs, plan), 0.35 * 8 * ExpectedFprAtScale(budget));
    }
  }
}

// Cuckoo's curve has a point per fingerprint size (about 1.06 bits apart):
// the bottom level's exact share lies between two, and a mix of files of
// both sizes (both on the curve) spends it at a lower FPR than one filter
// sized in between would have.
TEST(LevelAllocationTest, BottomMixesTheTwoCurvePointsAroundItsShare) {
  const std::vector<RunClass> runs = Tree(4, 4, 10);
  const std::vector<LevelFilter> plan = SolveAllocation(FprCurve({kCuckooType, 10}), runs);
  const LevelFilter& bottom = plan.back();
  ASSERT_GT(bottom.upper_fraction, 0);
  ASSERT_LT(bottom.upper_fraction, 1);
  EXPECT_EQ(ValidateFilterSpec(bottom.spec), "");
  EXPECT_EQ(ValidateFilterSpec(bottom.upper_spec), "");
  EXPECT_LT(bottom.spec.bits_per_key, bottom.BitsPerKey());
  EXPECT_GT(bottom.upper_spec.bits_per_key, bottom.BitsPerKey());
  EXPECT_LT(bottom.expected_fpr, ExpectedFprAtScale({kCuckooType, bottom.BitsPerKey()}));
  EXPECT_NEAR(BitsPerKey(runs, plan), 10, 1e-6);
  EXPECT_EQ(&bottom.SpecForFile(0.0), &bottom.upper_spec);
  EXPECT_EQ(&bottom.SpecForFile(0.999), &bottom.spec);
}

TEST(LevelAllocationTest, OneLevelKeepsTheBudgetNearlyWhole) {
  const FilterSpec budget{kCuckooType, 10};
  const std::vector<RunClass> runs = Tree(4, 1, 10);
  const std::vector<LevelFilter> plan = SolveAllocation(FprCurve(budget), runs);
  EXPECT_NEAR(BitsPerKey(runs, plan), 10, 0.1);
  EXPECT_LE(FprSum(runs, plan), 5 * ExpectedFprAtScale(budget));
}

}  // namespace
}  // namespace sstfilter
