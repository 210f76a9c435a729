// Pins the small form (docs/format.md) byte for byte and decodes it by the
// document's rules, independently of small_filter.cc and
// small_filter_builder.cc. A failure here is a format change:
// format_test.cc says what that requires.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "filters/reader_dispatch.h"
#include "filters/small_filter.h"
#include "format/hash.h"
#include "format/trailer.h"
#include "format_test_util.h"

namespace sstfilter {
namespace {

using test::Hex;

// The small form decoded with docs/format.md's rules, written out here
// independently of the writer and reader: trailer, check, layout, and the
// stored fingerprints are exactly the keys' FastRange64(hash, N).
void ExpectSmallMatchesDocumentedLayout(const std::string& filter, int num_keys) {
  const size_t size = filter.size();
  ASSERT_GE(size, 3u);
  const auto byte = [&](size_t i) {
    return static_cast<uint64_t>(static_cast<uint8_t>(filter[i]));
  };
  const bool long_trailer = byte(size - 1) >> 7;
  const size_t t = long_trailer ? 3 : 2;
  const unsigned count_bits = long_trailer ? 10 : 4, check_bits = long_trailer ? 13 : 11;
  uint64_t word = 0;
  for (size_t i = 0; i < t; ++i) word |= byte(size - t + i) << (8 * i);
  const uint64_t n = (word & ((1u << count_bits) - 1)) + 1;
  ASSERT_EQ(n, static_cast<uint64_t>(num_keys));
  EXPECT_EQ(long_trailer, n > 16);
  const uint64_t seed = 0x737374736d616c6cULL + (t << 16) + (n - 1);
  EXPECT_EQ((word >> count_bits) & ((1u << check_bits) - 1),
            XXH3_64bits_withSeed(filter.data(), size - t, seed) >> (64 - check_bits));
  const uint64_t p = 8 * (size - t);
  uint64_t k = (p + 1 + n - 1) / n;
  k = k >= 3 ? k - 3 : 0;
  if (k > 56) k = 56;
  const uint64_t cap = k == 0 ? ~uint64_t{0} : (uint64_t{1} << (64 - k)) - 1;
  const uint64_t buckets = std::min(p - n * (k + 1) + 1, cap);
  const uint64_t range = buckets << k;
  const uint64_t bitmap_bits = n + buckets - 1;
  auto bit = [&](uint64_t i) { return (byte(i / 8) >> (i % 8)) & 1; };
  std::vector<uint64_t> stored;
  uint64_t bucket = 0;
  for (uint64_t pos = 0; pos < bitmap_bits; ++pos) {
    if (!bit(pos)) {
      ++bucket;
      continue;
    }
    uint64_t low = 0;
    for (uint64_t b = 0; b < k; ++b) low |= bit(bitmap_bits + stored.size() * k + b) << b;
    stored.push_back((bucket << k) | low);
  }
  std::vector<uint64_t> expected;
  for (int i = 0; i < num_keys; ++i) {
    const std::string key = "key" + std::to_string(i);
    expected.push_back(FastRange64(KeyHash(key.data(), key.size()), range));
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(stored, expected);
}

std::string SmallFrom(int n, size_t bytes) {
  std::vector<uint64_t> hashes;
  for (int i = 0; i < n; ++i) {
    const std::string key = "key" + std::to_string(i);
    hashes.push_back(KeyHash(key.data(), key.size()));
  }
  std::string filter;
  EXPECT_TRUE(AppendSmallFilter(hashes, bytes, &filter));
  return filter;
}

TEST(FormatTest, GoldenSmall) {
  // 5 keys in LevelDB's 9 bytes at 10 bits/key: a 2-byte trailer, P = 56
  // bits, k = 9, 7 buckets; bitmap 11 bits, then 5 x 9 low bits. Trailer
  // (LE): n - 1 = 4 in bits 0..3, the check in bits 4..14, bit 15 0.
  const std::string five = SmallFrom(5, 9);
  EXPECT_EQ(Hex(five), "89568eacce2251" "445d");
  ExpectSmallMatchesDocumentedLayout(five, 5);
  // 35 keys in 45 bytes (LevelDB's budget): a 3-byte trailer, P = 336,
  // k = 7, 57 buckets.
  const std::string typical = SmallFrom(35, 45);
  EXPECT_EQ(ContentChecksum(typical.data(), typical.size()), 1768285612u);
  ExpectSmallMatchesDocumentedLayout(typical, 35);
  // 1024 keys, the most the trailer holds (n - 1 = 0x3ff).
  const std::string most = SmallFrom(1024, 1281);
  EXPECT_EQ(static_cast<uint8_t>(most[most.size() - 3]), 0xff);
  EXPECT_EQ(static_cast<uint8_t>(most[most.size() - 2]) & 3, 3);
  EXPECT_EQ(static_cast<uint8_t>(most[most.size() - 1]) >> 7, 1);
  ExpectSmallMatchesDocumentedLayout(most, 1024);
  ExpectSmallMatchesDocumentedLayout(SmallFrom(16, 21), 16);  // the largest short trailer
  ExpectSmallMatchesDocumentedLayout(SmallFrom(17, 23), 17);
  // Readers pick the small form from these bytes alone.
  ParsedFilter parsed;
  ASSERT_TRUE(ParseFilter(typical.data(), typical.size(), &parsed, ChecksumCheck::kEngineVerified));
  EXPECT_EQ(parsed.kind, kSmallFormKind);
  EXPECT_EQ(parsed.small.low_bits, 7u);
  EXPECT_EQ(parsed.small.buckets, 57u);
}

}  // namespace
}  // namespace sstfilter
