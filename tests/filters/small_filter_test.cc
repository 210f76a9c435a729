// The small form (small_filter.h): no false negatives at every size and
// budget, FPR as promised, which builders write it, what damage does, and
// the rule that keeps it apart from version-1 filters.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "filters/filter_spec.h"
#include "filters/reader_dispatch.h"
#include "filters/small_filter.h"
#include "format/hash.h"

namespace sstfilter {
namespace {

std::vector<uint64_t> Hashes(size_t n, uint64_t seed) {
  std::vector<uint64_t> h;
  for (size_t i = 0; i < n; ++i) h.push_back(Mix64(seed * 1000003 + i));
  return h;
}

TEST(SmallFilterTest, EveryAddedHashMatchesAtEverySizeAndBudget) {
  for (size_t n : {1, 2, 3, 5, 8, 13, 35, 64, 100, 333, 1024}) {
    for (size_t bytes : {n / 8 + 3, n + 3, (n * 10 + 7) / 8 + 1, n * 2 + 2, n * 16 + 2}) {
      const std::vector<uint64_t> hashes = Hashes(n, n * 7 + bytes);
      std::string filter;
      if (!AppendSmallFilter(hashes, bytes, &filter)) {
        EXPECT_TRUE(filter.empty());
        // Only where no layout fits (or, well under once in a million, by the
        // version-1 rule: NeverWritesBytesThatReadAsVersion1).
        SmallLayout layout;
        EXPECT_FALSE(SmallLayoutFor(n, bytes, &layout)) << n << " keys, " << bytes << " bytes";
        continue;
      }
      ASSERT_EQ(filter.size(), bytes);
      ParsedFilter parsed;
      ASSERT_TRUE(ParseFilter(filter.data(), filter.size(), &parsed));
      ASSERT_EQ(parsed.kind, kSmallFormKind);
      const auto reader = NewFilterReader(filter.data(), filter.size());
      for (uint64_t h : hashes) {
        ASSERT_TRUE(reader->MayMatch(h)) << n << " keys, " << bytes << " bytes";
        ASSERT_TRUE(FilterMayMatch(filter.data(), filter.size(), h));
      }
    }
  }
}

// Measured FPR within a few standard errors of n / N; repeats stored once.
TEST(SmallFilterTest, FalsePositiveRateIsNOverN) {
  for (size_t n : {10, 35, 500}) {
    const size_t bytes = (n * 10 + 7) / 8 + 1;  // LevelDB's budget at 10 bits/key
    const double expected = SmallExpectedFpr(n, bytes);
    EXPECT_LT(expected, 0.005) << n;
    double positives = 0, queries = 0;
    for (uint64_t f = 0; queries < 400000; ++f) {
      std::vector<uint64_t> hashes = Hashes(n, f + 1);
      hashes.push_back(hashes[0]);  // a far-apart repeat
      std::string filter;
      if (!AppendSmallFilter(hashes, bytes, &filter)) continue;
      const auto reader = NewFilterReader(filter.data(), filter.size());
      for (uint64_t q = 0; q < 1000; ++q, ++queries) {
        positives += reader->MayMatch(Mix64(~(f * 1000 + q)));
      }
    }
    const double fpr = positives / queries;
    EXPECT_NEAR(fpr, expected, 5 * std::sqrt(expected / queries)) << n;
  }
}

// NewFilterBuilder's builders (the RocksDB adapter's) write the small form
// in their own FilterSize wherever it is more accurate, their own kind
// above kMaxSmallKeys.
TEST(SmallFilterTest, CoreBuildersChooseItBySize) {
  for (FilterType type : AllFilterTypes()) {
    auto builder = NewFilterBuilder({type, 10});
    for (size_t n : {5, 40, 300, 1024, 1025, 5000}) {
      const std::vector<uint64_t> hashes = Hashes(n, 99);
      for (uint64_t h : hashes) builder->AddHash(h);
      std::string filter;
      builder->Finish(&filter);
      ParsedFilter parsed;
      ASSERT_TRUE(ParseFilter(filter.data(), filter.size(), &parsed));
      if (parsed.kind == kSmallFormKind) {
        EXPECT_LE(n, kMaxSmallKeys);
        EXPECT_EQ(filter.size(), builder->FilterSize(n)) << FilterTypeName(type) << " " << n;
      } else {
        EXPECT_TRUE(n > kMaxSmallKeys ||
                    SmallExpectedFpr(n, builder->FilterSize(n)) >= builder->ExpectedFpr(n))
            << FilterTypeName(type) << " " << n;
      }
      if (n <= 300) {
        EXPECT_EQ(parsed.kind, kSmallFormKind) << FilterTypeName(type) << n;
      }
      const auto reader = NewFilterReader(filter.data(), filter.size());
      for (uint64_t h : hashes) ASSERT_TRUE(reader->MayMatch(h));
    }
  }
}

// The 13-bit check (11 bits up to 16 keys) turns away all but about 1 in
// 8192 damaged filters; those would be read (answers then may be wrong,
// never out of bounds).
TEST(SmallFilterTest, DamageIsMostlyCaughtByTheCheck) {
  const std::vector<uint64_t> hashes = Hashes(35, 5);
  std::string good;
  ASSERT_TRUE(AppendSmallFilter(hashes, 45, &good));
  int accepted = 0, flips = 0;
  for (size_t bit = 0; bit < 8 * good.size(); ++bit, ++flips) {
    std::string bad = good;
    bad[bit / 8] = static_cast<char>(bad[bit / 8] ^ (1 << (bit % 8)));
    ParsedFilter parsed;
    const bool trusted = ParseFilter(bad.data(), bad.size(), &parsed, ChecksumCheck::kEngineVerified);
    accepted += trusted;
    const auto reader = NewFilterReader(bad.data(), bad.size());
    for (uint64_t h : hashes) {
      const bool match = reader->MayMatch(h);
      if (!trusted) {
        ASSERT_TRUE(match);
      }
    }
  }
  // 360 flips: 0.04 expected through a 13-bit check.
  EXPECT_LE(accepted, 1) << flips;
  // Truncated bytes are another layout under another check.
  int truncated_accepted = 0;
  for (size_t cut = 1; cut < good.size(); ++cut) {
    ParsedFilter parsed;
    truncated_accepted += ParseFilter(good.data(), good.size() - cut, &parsed);
  }
  EXPECT_LE(truncated_accepted, 1);
}

// The format's rule: the builder never writes a small filter that a
// version-1 reader (checksum or not) would take for one of its own. That
// needs byte -5 to be 0xF1, byte -8 a kind and bytes -7, -6 a shape that
// fits: well under one key set in a million, so none turns up here; the
// builder checks every filter it writes.
TEST(SmallFilterTest, NeverWritesBytesThatReadAsVersion1) {
  for (uint64_t seed = 0; seed < 20000; ++seed) {
    const std::vector<uint64_t> hashes = Hashes(12, seed);
    std::string filter;
    ASSERT_TRUE(AppendSmallFilter(hashes, 16, &filter));
    ParsedFilter v1;
    ASSERT_FALSE(ParseVersion1Filter(filter.data(), filter.size(), &v1,
                                     ChecksumCheck::kEngineVerified));
  }
}

TEST(SmallFilterTest, LayoutRule) {
  SmallLayout l;
  EXPECT_FALSE(SmallLayoutFor(0, 100, &l));
  EXPECT_FALSE(SmallLayoutFor(kMaxSmallKeys + 1, 100000, &l));
  EXPECT_FALSE(SmallLayoutFor(20, 4, &l));        // 16 bits for 20 keys
  EXPECT_FALSE(SmallLayoutFor(1, 1000, &l));      // over 128 bits/key + 64
  ASSERT_TRUE(SmallLayoutFor(1, 9, &l));          // 56 bits: k = 54, 2 buckets
  EXPECT_EQ(l.low_bits, 54u);
  EXPECT_EQ(l.buckets, 2u);
  ASSERT_TRUE(SmallLayoutFor(3, 58, &l));         // k capped at 56, N < 2^64
  EXPECT_EQ(l.low_bits, kMaxSmallLowBits);
  EXPECT_EQ(l.buckets, 255u);
  EXPECT_LT(l.bitmap_bits + 3 * 56, l.payload_bits);  // the cap leaves bits over
  ASSERT_TRUE(SmallLayoutFor(35, 45, &l));        // 3-byte trailer: P = 336
  EXPECT_EQ(l.low_bits, 7u);
  EXPECT_EQ(l.buckets, 57u);
  EXPECT_EQ(l.bitmap_bits + 35 * 7, l.payload_bits);  // every bit used
}

}  // namespace
}  // namespace sstfilter
