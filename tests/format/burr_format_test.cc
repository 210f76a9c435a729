// Pins the bumped ribbon payload (kind 6, docs/format.md) byte for byte,
// and decodes filters by the document alone: a decoder written from
// docs/format.md, not from the reader, finds every key. If a golden value
// fails, the format changed (see format_test.cc for the rule).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "filters/burr_filter.h"
#include "format/coding.h"
#include "format/hash.h"
#include "format/trailer.h"
#include "format_test_util.h"

namespace sstfilter {
namespace {

using test::Hex;

uint64_t DocMix64(uint64_t v) {
  v ^= v >> 33;
  v *= 0xff51afd7ed558ccdULL;
  v ^= v >> 33;
  v *= 0xc4ceb9fe1a85ec53ULL;
  v ^= v >> 33;
  return v;
}

// docs/format.md, "Bumped ribbon payload", step by step.
bool DocumentedMayMatch(const std::string& filter, uint64_t x) {
  const auto* p = reinterpret_cast<const uint8_t*>(filter.data());
  const int r = p[filter.size() - 7];
  const int layers = p[0];
  const uint64_t seed = p[2] * 0xd1b54a32d192ed03ULL;
  uint64_t h = seed == 0 ? x : DocMix64(x + seed);
  size_t offset = 4 + 8 * static_cast<size_t>(layers);
  for (int l = 0; l < layers; ++l) {
    const uint64_t blocks = DecodeFixed32(filter.data() + 4 + 8 * l);
    const uint64_t narrow = DecodeFixed32(filter.data() + 8 + 8 * l);
    const uint64_t starts = 64 * blocks - 63;
    const uint64_t buckets = (starts + 127) / 128;
    const uint8_t* codes = p + offset;
    const char* words = filter.data() + offset + (buckets + 3) / 4;
    offset += (buckets + 3) / 4;
    for (uint64_t b = 0; b < blocks; ++b) offset += 8 * (b < narrow ? r : r + 1);
    const uint64_t s = static_cast<uint64_t>((static_cast<Uint128>(h) * starts) >> 64);
    const unsigned code = (codes[(s >> 7) / 4] >> (2 * ((s >> 7) % 4))) & 3;
    const uint64_t thresholds[4] = {0, 16, 40, 128};
    if (s % 128 < thresholds[code]) {
      h = DocMix64(h + 0x6a09e667f3bcc909ULL);
      continue;
    }
    const uint64_t row = (h * 0x9e3779b97f4a7c15ULL) | 1;
    const uint64_t fp = ((h ^ (h >> 32)) * 0xbf58476d1ce4e5b9ULL) >> 32;
    const uint64_t block = s / 64;
    const int c = block < narrow ? r : r + 1;
    // Word index of a block's first column.
    auto first_word = [&](uint64_t k) {
      uint64_t w = 0;
      for (uint64_t b = 0; b < k; ++b) w += b < narrow ? r : r + 1;
      return w;
    };
    const uint64_t here = first_word(block), next = first_word(block + 1);
    for (int j = 0; j < c; ++j) {
      uint64_t bits = DecodeFixed64(words + 8 * (here + j)) >> (s % 64);
      if (s % 64 != 0) bits |= DecodeFixed64(words + 8 * (next + j)) << (64 - s % 64);
      if ((__builtin_popcountll(row & bits) & 1) != ((fp >> j) & 1)) return false;
    }
    return true;
  }
  return true;
}

std::string BuildOf(int n, double bits_per_key, std::vector<uint64_t>* hashes) {
  for (int i = 0; i < n; ++i) {
    const std::string key = "key" + std::to_string(i);
    hashes->push_back(KeyHash(key.data(), key.size()));
  }
  std::vector<uint64_t> keys = *hashes;
  std::string filter;
  EXPECT_TRUE(AppendBurrFilter(ChooseBurrShape(keys.size(), bits_per_key).payload_bytes, &keys, &filter));
  return filter;
}

TEST(BurrFormatTest, GoldenBytesDecodeByTheDocument) {
  // 3000 keys at 10 bits/key: 3750 bytes. Header: two layers, bucket log
  // 7, first attempt; layer 0 has 46 blocks, 24 of them narrow (r = 9),
  // layer 1 three blocks, two narrow.
  std::vector<uint64_t> hashes;
  const std::string a = BuildOf(3000, 10, &hashes);
  ASSERT_EQ(a.size(), 3750u);
  EXPECT_EQ(Hex(a.substr(0, 20)), "02070000" "2e000000" "18000000" "03000000" "02000000");
  EXPECT_EQ(Hex(a.substr(a.size() - 8)), "060900f1" "2d1af7c2");
  EXPECT_EQ(ContentChecksum(a.data(), a.size()), 573861393u);
  size_t misses = 0, hits = 0;
  for (uint64_t h : hashes) misses += DocumentedMayMatch(a, h) ? 0 : 1;
  EXPECT_EQ(misses, 0u);
  for (uint64_t i = 0; i < 100000; ++i) hits += DocumentedMayMatch(a, DocMix64(i + 12345));
  EXPECT_LT(hits, 300u);  // about 0.1%

  // 50000 keys at 16.5 bits/key: three layers of 745 (415 narrow, r =
  // 16), 36 (21) and 2 (2) blocks.
  hashes.clear();
  const std::string b = BuildOf(50000, 16.5, &hashes);
  EXPECT_EQ(Hex(b.substr(0, 28)), "03070000" "e9020000" "9f010000" "24000000" "15000000" "02000000" "02000000");
  EXPECT_EQ(Hex(b.substr(b.size() - 8)), "061000f1" "b224548a");
  EXPECT_EQ(ContentChecksum(b.data(), b.size()), 2671363232u);
  misses = 0;
  for (uint64_t h : hashes) misses += DocumentedMayMatch(b, h) ? 0 : 1;
  EXPECT_EQ(misses, 0u);
}

}  // namespace
}  // namespace sstfilter
