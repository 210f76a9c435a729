// The bumped ribbon filter's core: every key found at every size and
// budget, the space over the bound, reproducible bytes, failed builds, and
// layouts the builder never writes refused. Through the planner and the
// readers of every kind: filter_properties_test.cc.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "filters/burr_banding.h"
#include "filters/burr_filter.h"
#include "filters/burr_hashing.h"
#include "filters/burr_kind.h"
#include "filters/burr_reader.h"
#include "filters/filter.h"
#include "filters/planner.h"
#include "format/bits.h"
#include "format/trailer.h"
#include "test_util.h"

namespace sstfilter {
namespace {

using test::RandomHashes;

// The filter the plan for `bits_per_key` gives these hashes.
std::string Build(std::vector<uint64_t> hashes, double bits_per_key, BurrBuildStats* stats = nullptr) {
  const BurrShape shape = ChooseBurrShape(hashes.size(), bits_per_key);
  std::string filter;
  EXPECT_GT(shape.payload_bytes, 0u);
  EXPECT_TRUE(AppendBurrFilter(shape.payload_bytes, &hashes, &filter, stats));
  EXPECT_EQ(filter.size(), shape.payload_bytes + kTrailerSize);
  return filter;
}

// Parses the filter as a reader does; fails the test if it is refused.
BurrLayout LayoutOf(const std::string& filter) {
  Trailer trailer;
  size_t payload_size = 0;
  BurrLayout layout;
  EXPECT_TRUE(ParseTrailer(filter.data(), filter.size(), &trailer, &payload_size));
  EXPECT_EQ(trailer.kind, kBurrKind);
  EXPECT_TRUE(BurrDescriptor::Parse(trailer, filter.data(), payload_size, &layout));
  return layout;
}

template <typename Reader>
void ExpectAllMatchBy(const std::string& filter, const std::vector<uint64_t>& hashes) {
  const Reader reader(LayoutOf(filter));
  size_t misses = 0;
  for (uint64_t h : hashes) misses += reader.MayMatch(h) ? 0 : 1;
  ASSERT_EQ(misses, 0u);
  std::unique_ptr<bool[]> results(new bool[hashes.size() + 1]);
  reader.MayMatchBatch(hashes.size(), hashes.data(), results.get());
  for (size_t i = 0; i < hashes.size(); ++i) ASSERT_TRUE(results[i]) << i;
}

// Through both builds of the reader (the POPCNT one where the CPU runs it).
void ExpectAllMatch(const std::string& filter, const std::vector<uint64_t>& hashes) {
  ExpectAllMatchBy<BurrReader>(filter, hashes);
  if (CpuHasPopcnt()) ExpectAllMatchBy<BurrPopcntReader>(filter, hashes);
}

TEST(BurrTest, BothReaderBuildsAnswerAlikeOnNonKeys) {
  if (!CpuHasPopcnt()) {
    GTEST_SKIP() << "this CPU has no POPCNT: only the portable reader runs";
  }
  for (double bpk : {4.0, 9.5, 16.0, 24.0}) {
    SCOPED_TRACE(testing::Message() << "bpk=" << bpk);
    const auto keys = RandomHashes(20000, static_cast<uint64_t>(bpk * 100));
    const std::string filter = Build(keys, bpk);
    const BurrReader portable(LayoutOf(filter));
    const BurrPopcntReader popcnt(LayoutOf(filter));
    const auto probes = RandomHashes(100000, 7 + static_cast<uint64_t>(bpk));
    std::unique_ptr<bool[]> a(new bool[probes.size()]), b(new bool[probes.size()]);
    portable.MayMatchBatch(probes.size(), probes.data(), a.get());
    popcnt.MayMatchBatch(probes.size(), probes.data(), b.get());
    size_t matches = 0;
    for (size_t i = 0; i < probes.size(); ++i) {
      ASSERT_EQ(portable.MayMatch(probes[i]), popcnt.MayMatch(probes[i])) << i;
      ASSERT_EQ(a[i], b[i]) << i;
      ASSERT_EQ(a[i], portable.MayMatch(probes[i])) << i;
      matches += a[i];
    }
    // Some non-keys match at 4 bits/key (FPR about 6%), so the comparison
    // covers both answers there.
    if (bpk == 4.0) {
      EXPECT_GT(matches, 1000u);
    }
  }
}

// Sizes around the edges: one block (up to 56 keys), one more, and larger
// layers.
TEST(BurrTest, NoFalseNegativesAcrossSizesAndBudgets) {
  for (size_t n : {1, 2, 5, 56, 57, 64, 65, 100, 1000, 4097, 10000}) {
    for (double bpk : {4.0, 4.3, 7.7, 10.0, 12.5, 16.0, 19.9, 24.0, 31.5, 40.0}) {
      SCOPED_TRACE(testing::Message() << "n=" << n << " bpk=" << bpk);
      const auto hashes = RandomHashes(n, n * 31 + static_cast<uint64_t>(bpk * 10));
      const BurrShape shape = ChooseBurrShape(n, bpk);
      if (shape.payload_bytes == 0) continue;  // a few keys: no filter fits
      ExpectAllMatch(Build(hashes, bpk), hashes);
    }
  }
  for (size_t n : {131072, 300000}) {
    for (double bpk : {4.0, 10.0, 16.5}) {
      SCOPED_TRACE(testing::Message() << "n=" << n << " bpk=" << bpk);
      const auto hashes = RandomHashes(n, n + static_cast<uint64_t>(bpk));
      ExpectAllMatch(Build(hashes, bpk), hashes);
    }
  }
}

// Budgets from 4 to 24 bits/key in fractional steps (every split of
// narrow and wide blocks), and two million keys.
TEST(BurrTest, FractionalBudgetsAndTwoMillionKeys) {
  const auto hashes = RandomHashes(30000, 13);
  for (double bpk = 4.0; bpk <= 24.0; bpk += 0.7) {
    SCOPED_TRACE(bpk);
    ExpectAllMatch(Build(hashes, bpk), hashes);
  }
  const auto many = RandomHashes(2000000, 14);
  for (double bpk : {10.0, 16.5}) {
    SCOPED_TRACE(bpk);
    BurrBuildStats stats;
    ExpectAllMatch(Build(many, bpk, &stats), many);
    EXPECT_EQ(stats.attempts, 1);
    EXPECT_LE(stats.layers, 6);
  }
}

// The space targets, on the FPR the bytes give random non-keys:
// at most 1% over log2(1/FPR) from 100k keys, 3% at 10k.
TEST(BurrTest, SpaceOverTheBound) {
  struct Case {
    size_t n;
    double limit;
    double plan_error;  // of the planned FPR: a block more or less moves
                        // many words between narrow and wide blocks
  };
  for (const Case& c : {Case{10000, 0.03, 0.3}, Case{100000, 0.01, 0.1}, Case{1000000, 0.01, 0.05}}) {
    for (double bpk : {8.0, 10.0, 16.0, 24.0}) {
      SCOPED_TRACE(testing::Message() << "n=" << c.n << " bpk=" << bpk);
      const std::string filter = Build(RandomHashes(c.n, c.n ^ 5), bpk);
      const double fpr = BurrLayoutFpr(LayoutOf(filter));
      const double bits = 8.0 * static_cast<double>(filter.size()) / static_cast<double>(c.n);
      EXPECT_LE(bits, bpk);
      EXPECT_LE(bits / -std::log2(fpr) - 1, c.limit);
      // The plan's expectation is the filter's.
      EXPECT_NEAR(ChooseBurrShape(c.n, bpk).expected_fpr / fpr, 1.0, c.plan_error);
    }
  }
}

// Non-keys match at the rate the layout says.
TEST(BurrTest, MeasuredFprIsTheLayouts) {
  const auto hashes = RandomHashes(100000, 3);
  for (double bpk : {6.0, 10.0, 12.5}) {
    SCOPED_TRACE(bpk);
    const std::string filter = Build(hashes, bpk);
    const BurrLayout layout = LayoutOf(filter);
    const BurrReader reader(layout);
    const size_t queries = 2000000;
    size_t hits = 0;
    uint64_t state = 99;
    for (size_t i = 0; i < queries; ++i) hits += reader.MayMatch(test::SplitMix(&state));
    const double expected = BurrLayoutFpr(layout);
    EXPECT_NEAR(static_cast<double>(hits) / queries, expected, 6 * std::sqrt(expected / queries));
  }
}

TEST(BurrTest, BytesDependOnTheKeySetOnly) {
  auto hashes = RandomHashes(50000, 8);
  const std::string a = Build(hashes, 10);
  std::reverse(hashes.begin(), hashes.end());
  EXPECT_EQ(Build(hashes, 10), a);
  std::rotate(hashes.begin(), hashes.begin() + 777, hashes.end());
  EXPECT_EQ(Build(hashes, 10), a);
}

// Repeats anywhere in the input cancel as implied rows; hashes that share
// their high bits all start in one bucket, which is bumped whole, and the
// next layer's remix spreads them.
TEST(BurrTest, RepeatsAndStructuredHashes) {
  auto hashes = RandomHashes(20000, 4);
  std::vector<uint64_t> with_repeats = hashes;
  for (size_t i = 0; i < hashes.size(); i += 3) with_repeats.push_back(hashes[i]);
  ExpectAllMatch(Build(with_repeats, 10), hashes);
  for (int shift : {0, 24, 40, 56}) {
    SCOPED_TRACE(shift);
    std::vector<uint64_t> structured;
    for (uint64_t i = 0; i < 20000; ++i) structured.push_back(i << shift | (i >> 8) << 3);
    ExpectAllMatch(Build(structured, 16), structured);
  }
}

// A tuning no build can meet (every layer one block) fails every attempt:
// nothing is appended and the keys are all still there, for the caller's
// fallback (planner.h).
TEST(BurrTest, AFailedBuildAppendsNothingAndKeepsTheKeys) {
  BurrTuning tuning;
  tuning.load = 1e9;
  const auto hashes = RandomHashes(5000, 6);
  std::vector<uint64_t> keys = hashes;
  std::string dst = "prefix";
  EXPECT_FALSE(AppendBurrFilter(100000, &keys, tuning, &dst, nullptr));
  EXPECT_EQ(dst, "prefix");
  std::sort(keys.begin(), keys.end());
  std::vector<uint64_t> sorted = hashes;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(keys, sorted);
  // Too small a budget for one column everywhere fails the same way.
  keys = hashes;
  EXPECT_FALSE(AppendBurrFilter(100, &keys, BurrTuning(), &dst, nullptr));
  EXPECT_EQ(dst, "prefix");
}

// Should a planned bumped ribbon filter fail to build, the plan's Bloom
// filter of the budget is written instead: every key still found.
TEST(BurrTest, APlanThatCannotBeBuiltWritesItsBloomFilter) {
  const auto hashes = RandomHashes(20000, 12);
  FilterPlan plan = BurrDescriptor::Plan(0, hashes.size(), 10);
  ASSERT_EQ(plan.kind, kBurrKind);
  BurrShape shape = plan.shape<BurrShape>();
  shape.payload_bytes = 100;  // not one column's worth
  plan.set_shape(shape);
  std::vector<uint64_t> keys = hashes;
  std::string filter;
  WritePlannedFilter(plan, &keys, &filter);
  Trailer trailer;
  size_t payload_size = 0;
  ASSERT_TRUE(ParseTrailer(filter.data(), filter.size(), &trailer, &payload_size));
  EXPECT_EQ(trailer.kind, kBloomKind);
  EXPECT_LE(filter.size(), hashes.size() * 10 / 8 + kTrailerSize);
  const auto reader = NewFilterReader(filter.data(), filter.size());
  for (uint64_t h : hashes) ASSERT_TRUE(reader->MayMatch(h));
}

TEST(BurrTest, LayoutsTheBuilderNeverWritesAreRefused) {
  const std::string good = Build(RandomHashes(3000, 9), 10);
  Trailer trailer;
  size_t payload_size = 0;
  ASSERT_TRUE(ParseTrailer(good.data(), good.size(), &trailer, &payload_size));
  BurrLayout layout;
  ASSERT_TRUE(BurrDescriptor::Parse(trailer, good.data(), payload_size, &layout));
  auto refused = [&](const std::string& bytes, Trailer t, size_t size) {
    BurrLayout l;
    return !BurrDescriptor::Parse(t, bytes.data(), size, &l);
  };
  auto with_byte = [&](size_t at, char value) {
    std::string bad = good;
    bad[at] = value;
    return bad;
  };
  EXPECT_TRUE(refused(with_byte(0, 0), trailer, payload_size));                 // no layer
  EXPECT_TRUE(refused(with_byte(0, kBurrMaxLayers + 1), trailer, payload_size));
  EXPECT_TRUE(refused(with_byte(1, kBurrBucketLog - 1), trailer, payload_size));
  EXPECT_TRUE(refused(with_byte(2, kMaxBurrAttempts), trailer, payload_size));
  EXPECT_TRUE(refused(with_byte(3, 1), trailer, payload_size));
  // Layer 0's block count 0, and its narrow blocks past its blocks.
  std::string bad = good;
  for (int i = 0; i < 4; ++i) bad[kBurrHeaderSize + i] = 0;
  EXPECT_TRUE(refused(bad, trailer, payload_size));
  bad = good;
  for (int i = 0; i < 4; ++i) bad[kBurrHeaderSize + 4 + i] = static_cast<char>(0xff);
  EXPECT_TRUE(refused(bad, trailer, payload_size));
  // Truncated, and column counts outside 1..31.
  EXPECT_TRUE(refused(good, trailer, payload_size - 100));
  EXPECT_TRUE(refused(good, trailer, 3));
  Trailer t = trailer;
  t.param_a = 0;
  EXPECT_TRUE(refused(good, t, payload_size));
  t.param_a = kMaxBurrColumns;
  EXPECT_TRUE(refused(good, t, payload_size));
  t = trailer;
  t.param_b = 1;
  EXPECT_TRUE(refused(good, t, payload_size));
}

}  // namespace
}  // namespace sstfilter
