// The Monkey plan on the core's FPR models: it spends the budget, gives
// smaller levels more bits, and lowers the summed FPR a lookup pays.

#include "allocation/level_allocation.h"

#include <gtest/gtest.h>

namespace sstfilter {
namespace {

// Sum of FPRs with `bits` everywhere, over the same runs as `plan`.
double UniformFprSum(const LevelPlan& plan, const FilterSpec& spec) {
  const LevelShape& s = plan.shape();
  return (s.l0_files + s.bottom_level - s.base_level + 1) * ExpectedFprOf(spec);
}

TEST(LevelAllocationTest, NamesRoundTrip) {
  for (Allocation a : {Allocation::kUniform, Allocation::kMonkey}) {
    Allocation parsed = a == Allocation::kUniform ? Allocation::kMonkey : Allocation::kUniform;
    ASSERT_TRUE(AllocationFromName(AllocationName(a), &parsed));
    EXPECT_EQ(parsed, a);
  }
  Allocation unchanged = Allocation::kUniform;
  EXPECT_FALSE(AllocationFromName("Monkey", &unchanged));
  EXPECT_FALSE(AllocationFromName("", &unchanged));
}

TEST(LevelAllocationTest, SpendsTheBudgetAndFavoursSmallLevels) {
  for (FilterType type : {FilterType::kCuckoo, FilterType::kBloom, FilterType::kFuse}) {
    for (double bits : {6.0, 10.0, 16.0}) {
      const FilterSpec budget{type, bits};
      const LevelPlan plan = LevelPlan::Solve(budget, LevelShape{3, 6, 10, 4});
      SCOPED_TRACE(std::string(FilterTypeName(type)) + " " + std::to_string(bits));
      EXPECT_NEAR(plan.ModelBitsPerKey(), bits, 0.01 * bits);
      // Bottom level below the budget, each level above it at least as many
      // bits as the next (fuse filters' FPR falls in steps of several bits,
      // so two small levels may share one), the base level far more.
      EXPECT_LT(plan.ForLevel(6).spec.bits_per_key, bits);
      for (int level = 3; level < 6; ++level) {
        EXPECT_GE(plan.ForLevel(level).spec.bits_per_key,
                  plan.ForLevel(level + 1).spec.bits_per_key) << "L" << level;
      }
      EXPECT_GT(plan.ForLevel(3).spec.bits_per_key, plan.ForLevel(6).spec.bits_per_key + 5);
      EXPECT_GE(plan.ForLevel(0).spec.bits_per_key, plan.ForLevel(3).spec.bits_per_key);
      for (int level = 0; level <= 7; ++level) {
        const FilterSpec& spec = plan.ForLevel(level).spec;
        EXPECT_EQ(ValidateFilterSpec(spec), "") << "L" << level;
        EXPECT_TRUE(spec.type == type || spec.type == FilterType::kBloom);
      }
      // Seven runs (4 L0 files, 3 levels): far below seven uniform FPRs.
      EXPECT_LT(plan.ModelFprSum(), 0.35 * UniformFprSum(plan, budget));
    }
  }
}

// Cuckoo's curve has a point per fingerprint size (about 1.06 bits apart):
// the bottom level's exact share lies between two, and a mix of files of
// both sizes (both on the curve) spends it at a lower FPR than one filter
// sized in between would have.
TEST(LevelAllocationTest, BottomMixesTheTwoCurvePointsAroundItsShare) {
  const FilterSpec budget{FilterType::kCuckoo, 10};
  const LevelPlan plan = LevelPlan::Solve(budget, LevelShape{3, 6, 10, 4});
  const LevelFilter& bottom = plan.ForLevel(6);
  ASSERT_GT(bottom.upper_fraction, 0);
  ASSERT_LT(bottom.upper_fraction, 1);
  EXPECT_EQ(ValidateFilterSpec(bottom.spec), "");
  EXPECT_EQ(ValidateFilterSpec(bottom.upper_spec), "");
  EXPECT_LT(bottom.spec.bits_per_key, bottom.BitsPerKey());
  EXPECT_GT(bottom.upper_spec.bits_per_key, bottom.BitsPerKey());
  EXPECT_LT(bottom.expected_fpr, ExpectedFprOf({FilterType::kCuckoo, bottom.BitsPerKey()}));
  EXPECT_NEAR(plan.ModelBitsPerKey(), 10, 1e-6);
  EXPECT_EQ(&bottom.SpecForFile(0.0), &bottom.upper_spec);
  EXPECT_EQ(&bottom.SpecForFile(0.999), &bottom.spec);
}

TEST(LevelAllocationTest, OneLevelKeepsTheBudgetNearlyWhole) {
  const FilterSpec budget{FilterType::kCuckoo, 10};
  const LevelPlan plan = LevelPlan::Solve(budget, LevelShape{1, 1, 10, 4});
  EXPECT_NEAR(plan.ModelBitsPerKey(), 10, 0.1);
  EXPECT_LE(plan.ModelFprSum(), UniformFprSum(plan, budget));
}

TEST(LevelAllocationTest, OutOfRangeShapesAreClamped) {
  const LevelPlan plan =
      LevelPlan::Solve(FilterSpec{FilterType::kCuckoo, 10}, LevelShape{0, -3, 0.5, 0});
  EXPECT_EQ(plan.shape().base_level, 1);
  EXPECT_EQ(plan.shape().bottom_level, 1);
  EXPECT_EQ(plan.shape().l0_files, 1);
  EXPECT_EQ(ValidateFilterSpec(plan.ForLevel(1).spec), "");
}

}  // namespace
}  // namespace sstfilter
