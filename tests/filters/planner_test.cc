// The planner's contract: what a builder writes is what the plan says (its
// kind, its bytes), every plan keeps its budget, and each choice between
// kinds is the lowest expected FPR.

#include "filters/planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "filters/filter_spec.h"
#include "filters/reader_dispatch.h"
#include "filters/small_filter.h"
#include "format/hash.h"
#include "test_util.h"

namespace sstfilter {
namespace {

std::vector<uint64_t> Hashes(size_t n, uint64_t seed) {
  std::vector<uint64_t> out;
  for (const std::string& k : test::MakeKeys(n, seed)) out.push_back(KeyHash(k.data(), k.size()));
  return out;
}

FilterKind KindOf(const std::string& filter) {
  ParsedFilter f;
  EXPECT_TRUE(ParseFilter(filter.data(), filter.size(), &f, ChecksumCheck::kVerify));
  return f.kind;
}

void ExpectAllMatch(const std::string& filter, const std::vector<uint64_t>& hashes) {
  const auto reader = NewFilterReader(filter.data(), filter.size());
  for (uint64_t h : hashes) ASSERT_TRUE(reader->MayMatch(h));
}

const size_t kCounts[] = {1, 2, 3, 5, 9, 17, 40, 100, 333, 1024, 1025, 1600, 5000, 30000};

// Finish writes the plan, small form included: the same kind, the same
// bytes, every key found.
TEST(PlannerTest, BuildersWriteWhatThePlanSays) {
  for (FilterType type : AllFilterTypes()) {
    for (double bits : {4.0, 6.0, 10.0, 16.0, 23.9}) {
      const FilterSpec spec{type, bits};
      if (!ValidateFilterSpec(spec).empty()) continue;
      auto builder = NewFilterBuilder(spec);
      for (size_t n : kCounts) {
        SCOPED_TRACE(std::string(FilterTypeName(type)) + " " + std::to_string(bits) + " n=" +
                     std::to_string(n));
        const std::vector<uint64_t> hashes = Hashes(n, n * 31 + 7);
        const FilterPlan own = PlanFilter(spec, n);
        const FilterPlan plan = WithSmallForm(own, n, own.bytes);
        EXPECT_EQ(builder->FilterSize(n), own.bytes);
        EXPECT_EQ(builder->ExpectedFpr(n), own.expected_fpr);
        EXPECT_EQ(builder->FinishedFpr(n), plan.expected_fpr);
        for (uint64_t h : hashes) builder->AddHash(h);
        std::string filter;
        builder->Finish(&filter);
        EXPECT_EQ(KindOf(filter), plan.kind);
        // Cuckoo placement may grow a table (rarely; never at these sizes).
        EXPECT_EQ(filter.size(), plan.bytes);
        ExpectAllMatch(filter, hashes);
      }
    }
  }
}

// A budget in bits/key is kept: n * bits/key bits of payload (Bloom's
// whole lines round up), with a byte-sized Bloom filter where no cuckoo
// table fits it.
TEST(PlannerTest, PlansKeepTheBudget) {
  int bloom_fallbacks = 0;
  for (FilterType type : AllFilterTypes()) {
    for (double bits : {4.0, 7.5, 10.0, 16.0}) {
      const FilterSpec spec{type, bits};
      if (!ValidateFilterSpec(spec).empty()) continue;
      for (size_t n : kCounts) {
        const FilterPlan plan = PlanFilter(spec, n);
        const double payload_bits = 8.0 * static_cast<double>(plan.bytes - kTrailerSize);
        // Bloom's whole lines round up by less than one 64-byte line.
        const double slack = type == FilterType::kBloom ? 512 : 8;
        EXPECT_LE(payload_bits, std::ceil(n * bits) + slack)
            << FilterTypeName(type) << " " << bits << " n=" << n;
        if (type.first_kind() == kCuckooPlainKind) {
          // Bloom exactly where no cuckoo table fits the budget.
          const auto variant = static_cast<CuckooVariant>(type.variant());
          const bool fits = ChooseCuckooShape(n, bits, variant).fits_budget;
          EXPECT_EQ(plan.kind == kBloomKind, !fits) << FilterTypeName(type) << " n=" << n;
          if (!fits) ++bloom_fallbacks;
        }
      }
    }
  }
  EXPECT_GT(bloom_fallbacks, 0);  // the grid reaches the fallback
}

// Fuse budgets get the most accurate of fuse, cuckoo and Bloom.
TEST(PlannerTest, FuseBudgetsTakeTheMostAccurateKind) {
  int kinds_seen[4] = {};
  for (double bits : {4.0, 6.0, 10.0, 16.0}) {
    for (size_t n : kCounts) {
      const FilterPlan plan = FuseDescriptor::Plan(0, n, bits);
      const double floor = std::ldexp(1.0, -kMaxFuseFingerprintBits);
      const double best = std::min(PlanCuckoo(n, bits, CuckooVariant::kAuto).expected_fpr,
                                   PlanBloom(n, bits, BloomSizing::kExactBytes).expected_fpr);
      EXPECT_LE(std::max(plan.expected_fpr, floor), std::max(best, floor)) << bits << " " << n;
      ++kinds_seen[plan.kind == kFuseKind ? 0 : plan.kind == kBloomKind ? 1 : 2];
    }
  }
  // The grid reaches all three answers, so the comparison is exercised.
  EXPECT_GT(kinds_seen[0], 0);
  EXPECT_GT(kinds_seen[1], 0);
  EXPECT_GT(kinds_seen[2], 0);
}

// Bumped ribbon budgets get the bumped ribbon filter, or where FuseDescriptor::Plan's
// choice is more accurate (small key counts) that; both answers occur.
TEST(PlannerTest, BurrBudgetsTakeTheMoreAccurateOfBurrAndFusesChoice) {
  int burr = 0, other = 0;
  for (double bits : {4.0, 6.0, 10.0, 16.0, 23.5}) {
    for (size_t n : kCounts) {
      const FilterPlan plan = BurrDescriptor::Plan(0, n, bits);
      const FilterPlan fuse = FuseDescriptor::Plan(0, n, bits);
      const double floor = std::ldexp(1.0, -kMaxBurrColumns);
      EXPECT_LE(std::max(plan.expected_fpr, floor), std::max(fuse.expected_fpr, floor)) << bits << " " << n;
      EXPECT_LE(plan.bytes, std::max(fuse.bytes, static_cast<size_t>(n * bits / 8))) << bits << " " << n;
      ++(plan.kind == kBurrKind ? burr : other);
    }
    // Large filters are bumped ribbon filters.
    EXPECT_EQ(BurrDescriptor::Plan(0, 100000, bits).kind, kBurrKind) << bits;
  }
  EXPECT_GT(burr, 0);
  EXPECT_GT(other, 0);
}

// The small form only where it is more accurate, never for 0 keys or more
// than kMaxSmallKeys.
TEST(PlannerTest, SmallFormOnlyWhereMoreAccurate) {
  int small = 0;
  for (size_t n : {size_t{0}, size_t{1}, size_t{10}, size_t{200}, kMaxSmallKeys,
                   kMaxSmallKeys + 1}) {
    const FilterPlan own = PlanBloom(n, 10, BloomSizing::kWholeLines);
    const FilterPlan plan = WithSmallForm(own, n, own.bytes);
    if (plan.kind == kSmallFormKind) {
      ++small;
      EXPECT_LT(plan.expected_fpr, own.expected_fpr);
      EXPECT_EQ(plan.bytes, own.bytes);
      EXPECT_GT(n, 0u);
      EXPECT_LE(n, kMaxSmallKeys);
    } else {
      EXPECT_EQ(plan.expected_fpr, own.expected_fpr);
    }
  }
  EXPECT_GT(small, 0);
  EXPECT_EQ(WithSmallForm(PlanBloom(0, 10, BloomSizing::kExactBytes), 0, 64).kind,
            kBloomKind);
  EXPECT_EQ(WithSmallForm(PlanBloom(2000, 10, BloomSizing::kExactBytes), 2000, 2508).kind,
            kBloomKind);
}

// LevelDB's byte budgets: never over (from kMinBitsPerKey on), never less
// accurate than the Bloom filter of the budget, and what is written is what
// was planned.
TEST(PlannerTest, ByteBudgetsAreKept) {
  for (FilterType type : AllFilterTypes()) {
    for (size_t n : {size_t{1}, size_t{5}, size_t{35}, size_t{80}, size_t{700}, size_t{3000}}) {
      for (double bits : {4.0, 10.0, 16.0}) {
        const size_t budget = static_cast<size_t>(std::ceil(n * bits / 8)) + 9;
        SCOPED_TRACE(std::string(FilterTypeName(type)) + " n=" + std::to_string(n));
        const FilterPlan own = PlanInBytes(type, n, budget, false);
        const FilterPlan plan = PlanInBytes(type, n, budget, true);
        const FilterPlan bloom = PlanInBytes(FilterType::kBloom, n, budget, false);
        EXPECT_LE(own.bytes, budget);
        EXPECT_LE(plan.bytes, budget);
        EXPECT_LE(plan.expected_fpr, own.expected_fpr);
        EXPECT_LE(own.expected_fpr, bloom.expected_fpr);
        if (plan.kind == kSmallFormKind) {
          EXPECT_EQ(plan.bytes, budget);
        }
        std::vector<uint64_t> hashes = Hashes(n, n + 3);
        const std::vector<uint64_t> kept = hashes;
        std::string filter;
        WritePlannedFilter(own, &hashes, &filter);
        EXPECT_EQ(filter.size(), own.bytes);
        EXPECT_EQ(KindOf(filter), own.kind);
        ExpectAllMatch(filter, kept);
      }
    }
  }
}

// A small-form plan handed to WritePlannedFilter is written, never dropped.
TEST(PlannerTest, WritingASmallFormPlanKeepsEveryKey) {
  std::vector<uint64_t> hashes = Hashes(40, 11);
  const std::vector<uint64_t> kept = hashes;
  const FilterPlan plan = PlanInBytes(FilterType::kBloom, 40, 60, true);
  ASSERT_EQ(plan.kind, kSmallFormKind);
  std::string filter;
  WritePlannedFilter(plan, &hashes, &filter);
  EXPECT_EQ(filter.size(), 60u);
  ExpectAllMatch(filter, kept);
}

// The level allocation's comparison: Bloom where it beats the configured
// type at that budget, the type otherwise, and nothing the type refuses.
TEST(PlannerTest, AtScaleTakesTheBetterOfTypeAndBloom) {
  FilterSpec spec;
  double fpr = 0;
  ASSERT_TRUE(PlanAtScale(kCuckooType, 3, &spec, &fpr));
  EXPECT_EQ(spec.type, FilterType::kBloom);  // under cuckoo's minimum
  ASSERT_TRUE(PlanAtScale(kCuckooType, 16, &spec, &fpr));
  EXPECT_EQ(spec.type, kCuckooType);
  EXPECT_EQ(fpr, ExpectedFprAtScale({kCuckooType, 16}));
  EXPECT_LT(fpr, ExpectedFprAtScale({FilterType::kBloom, 16}));
  EXPECT_FALSE(PlanAtScale(kFuseType, 0.5, &spec, &fpr));
}

// The registry (kinds.h): every name once, found again by its name, with a
// range; every type's filter read back as the kind its plan says.
TEST(PlannerTest, EveryRegisteredTypeIsNamedOnceAndReadBack) {
  std::set<std::string> names;
  for (FilterType type : AllFilterTypes()) {
    const std::string name = FilterTypeName(type);
    SCOPED_TRACE(name);
    EXPECT_TRUE(names.insert(name).second);
    FilterType found;
    ASSERT_TRUE(FilterTypeFromName(name, &found));
    EXPECT_EQ(found, type);
    EXPECT_STRNE(FilterTypeDescription(type), "");
    EXPECT_LE(MinBitsPerKey(type), MaxBitsPerKey(type));
    const FilterSpec spec{type, std::max(12.0, MinBitsPerKey(type))};
    auto builder = NewFilterBuilder(spec);
    const std::vector<uint64_t> hashes = Hashes(20000, 5);
    for (uint64_t h : hashes) builder->AddHash(h);
    std::string filter;
    builder->Finish(&filter);
    EXPECT_EQ(KindOf(filter), PlanFilter(spec, hashes.size()).kind);
    ExpectAllMatch(filter, hashes);
  }
  FilterType none;
  EXPECT_FALSE(FilterTypeFromName("cukoo", &none));
  EXPECT_STREQ(FilterTypeName(FilterType(FilterKind{0x7f}, 0)), "unknown");
}

}  // namespace
}  // namespace sstfilter
