// Bloom-specific properties: probe choice, sizes, short lines.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "filters/bloom.h"
#include "filters/bloom_kind.h"
#include "filters/filter.h"
#include "format/hash.h"
#include "test_util.h"

namespace sstfilter {
namespace {

TEST(BloomTest, ProbesAreTheFewestWithinOnePercentOfTheBestFpr) {
  for (double bpk = 1; bpk <= 100; bpk += 0.5) {
    double best = 1;
    for (int k = 1; k <= 30; ++k) best = std::min(best, BloomExpectedFpr(bpk, k));
    const int k = BloomProbes(bpk);
    ASSERT_GE(k, 1);
    ASSERT_LE(BloomExpectedFpr(bpk, k), best * 1.01) << bpk;
    if (k > 1) {
      ASSERT_GT(BloomExpectedFpr(bpk, k - 1), best * 1.01) << bpk;
    }
  }
  // FastLocalBloom's choices at the common settings.
  EXPECT_EQ(BloomProbes(10), 6);
  EXPECT_EQ(BloomProbes(16), 9);
}

// The engine adapters reject such budgets; the core still must not cast
// NaN, an infinity or a huge value to an integer (undefined behaviour), and
// must build a filter without false negatives from them.
TEST(BloomTest, NonFiniteAndOutOfRangeBudgetsTakeTheNearestBound) {
  const double nan = std::nan("");
  for (double low : {nan, -HUGE_VAL, -5.0, 0.0, 0.5}) {
    SCOPED_TRACE(testing::Message() << "bpk=" << low);
    EXPECT_EQ(BloomProbes(low), BloomProbes(kMinBitsPerKey));
    EXPECT_EQ(BloomExpectedFpr(low, 2), BloomExpectedFpr(kMinBitsPerKey, 2));
  }
  for (double high : {HUGE_VAL, 1e300, 1e12, 101.0}) {
    SCOPED_TRACE(testing::Message() << "bpk=" << high);
    EXPECT_EQ(BloomProbes(high), BloomProbes(kMaxBitsPerKey));
    EXPECT_EQ(BloomExpectedFpr(high, 2), BloomExpectedFpr(kMaxBitsPerKey, 2));
  }
  const auto keys = test::MakeKeys(500, 17);
  for (BloomSizing sizing : {BloomSizing::kWholeLines, BloomSizing::kExactBytes}) {
    for (double bpk : {nan, -HUGE_VAL, HUGE_VAL, 1e300}) {
      SCOPED_TRACE(testing::Message() << "bpk=" << bpk);
      BloomBuilder builder(bpk, sizing);
      BloomBuilder bound(bpk > 0 ? kMaxBitsPerKey : kMinBitsPerKey, sizing);
      for (const auto& k : keys) {
        builder.AddHash(KeyHash(k.data(), k.size()));
        bound.AddHash(KeyHash(k.data(), k.size()));
      }
      std::string filter, expected;
      builder.Finish(&filter);
      bound.Finish(&expected);
      EXPECT_EQ(filter, expected);  // NaN: the minimum budget
      for (const auto& k : keys) {
        ASSERT_TRUE(FilterMayMatch(filter.data(), filter.size(), KeyHash(k.data(), k.size())));
      }
    }
  }
}

TEST(BloomTest, SizeIsWholeLinesOrOneShortLine) {
  BloomBuilder builder(10);
  EXPECT_EQ(builder.FilterSize(0), 8u);         // trailer only
  EXPECT_EQ(builder.FilterSize(1), 2u + 8);     // 10 bits -> 2 bytes
  EXPECT_EQ(builder.FilterSize(40), 50u + 8);   // 400 bits, short line
  EXPECT_EQ(builder.FilterSize(52), 128u + 8);  // 520 bits -> 2 lines
  EXPECT_EQ(builder.FilterSize(1000000), 19532u * 64 + 8);
}

TEST(BloomTest, ShortLineFiltersWork) {
  for (size_t n = 1; n <= 50; ++n) {  // up to 500 bits: a short line
    const auto keys = test::MakeKeys(n, n);
    BloomBuilder builder(10);
    for (const auto& k : keys) builder.AddHash(KeyHash(k.data(), k.size()));
    std::string filter;
    builder.Finish(&filter);
    ASSERT_LT(filter.size(), 64u + 8);
    for (const auto& k : keys) {
      ASSERT_TRUE(FilterMayMatch(filter.data(), filter.size(), KeyHash(k.data(), k.size())));
    }
  }
}

TEST(BloomTest, ExactSizingWritesOneLineOfExactlyTheBudget) {
  BloomBuilder exact(10, BloomSizing::kExactBytes);
  EXPECT_EQ(exact.FilterSize(100), 125u + 8);  // not rounded to 128
  for (size_t n : {51, 100, 205, 1000}) {
    const auto keys = test::MakeKeys(n, n);
    for (const auto& k : keys) exact.AddHash(KeyHash(k.data(), k.size()));
    std::string filter;
    exact.Finish(&filter);
    ASSERT_EQ(filter.size(), (n * 10 + 7) / 8 + 8);
    for (const auto& k : keys) {
      ASSERT_TRUE(FilterMayMatch(filter.data(), filter.size(), KeyHash(k.data(), k.size())));
    }
    // An ordinary Bloom filter of m bits: FPR near (1 - e^(-kn/m))^k.
    const auto reader = NewFilterReader(filter.data(), filter.size());
    size_t fp = 0;
    const auto negatives = test::MakeKeys(200000, 7, 'n');
    for (const auto& k : negatives) fp += reader->MayMatch(KeyHash(k.data(), k.size()));
    const double kp = BloomProbes(10);
    const double expected = std::pow(1 - std::exp(-kp * n / ((filter.size() - 8) * 8.0)), kp);
    EXPECT_NEAR(fp / 200000.0, expected, expected * 0.3 + 0.002) << n;
  }
}

TEST(BloomTest, EmptyFilterMatchesNothing) {
  BloomBuilder builder(10);
  std::string filter;
  builder.Finish(&filter);
  const auto reader = NewFilterReader(filter.data(), filter.size());
  for (const auto& k : test::MakeKeys(1000, 3)) {
    EXPECT_FALSE(reader->MayMatch(KeyHash(k.data(), k.size())));
  }
}

}  // namespace
}  // namespace sstfilter
