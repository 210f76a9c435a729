// DynamicCuckooFilter's format version 5 (docs/format.md, "Dynamic cuckoo
// filter, version 5"): golden bytes read back by an independent decoder
// that follows the document, round trips through growth and checked mode,
// and Load refusing every damaged or rewritten input.

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "dynamic_test_util.h"
#include "format/coding.h"
#include "format/hash.h"
#include "sstfilter/dynamic_cuckoo.h"

namespace sstfilter {
namespace {

// The document's reading of a slot: bits [pos, pos + width) of the
// little-endian words after the 64-byte header.
uint64_t DocBits(const std::string& bytes, uint64_t pos, unsigned width) {
  uint64_t v = 0;
  for (unsigned i = 0; i < width; ++i) {
    const uint64_t bit = pos + i;
    const unsigned char byte = static_cast<unsigned char>(bytes[64 + bit / 8]);
    v |= static_cast<uint64_t>((byte >> (bit % 8)) & 1) << i;
  }
  return v;
}

uint64_t GrowingTag(uint64_t hash) { return ((hash ^ (hash >> 29)) * 0xbf58476d1ce4e5b9ULL) >> 56; }

// Whether the document's rules find `hash` in the encoded table.
bool DocContains(const std::string& bytes, uint64_t hash) {
  const uint64_t base = 128;  // initial_capacity 8 -> the minimum base
  const unsigned k = static_cast<uint8_t>(bytes[56]);
  const unsigned w = static_cast<uint8_t>(bytes[57]);
  const unsigned f = static_cast<uint8_t>(bytes[58]);
  const uint64_t buckets = base << k;
  const Uint128 p = static_cast<Uint128>(hash) * buckets;
  const uint64_t i1 = static_cast<uint64_t>(p >> 64);
  const uint64_t fp = static_cast<uint64_t>(p) >> (64 - f);
  const uint64_t tag = GrowingTag(hash);
  const uint64_t d = 1 + FastRange64(Mix64(tag + 0x9e3779b97f4a7c15ULL), buckets - 1);
  const uint64_t i2 = (i1 + d) % buckets;
  for (unsigned a = 0; a < 2; ++a) {
    const uint64_t b = a == 0 ? i1 : i2;
    const uint64_t start = b * w * (f + 10);
    for (unsigned s = 0; s < w; ++s) {
      const uint64_t head = DocBits(bytes, start + s * 9, 9);
      const uint64_t tail = DocBits(bytes, start + w * 9 + s * (f + 1), f + 1);
      if (tail == 0 || head != ((uint64_t{a} << 8) | tag)) continue;
      unsigned marker = 0;
      while (((tail >> marker) & 1) == 0) ++marker;
      const unsigned len = f - marker;  // fp bits the entry holds
      if ((tail >> (marker + 1)) == (len == 0 ? 0 : fp >> (f - len))) return true;
    }
  }
  return false;
}

TEST(GrowingFormatTest, GoldenBytes) {
  DynamicCuckooOptions o;
  o.target_fpr = 0.01;
  o.initial_capacity = 8;
  o.checked = true;
  std::unique_ptr<DynamicCuckooFilter> f;
  ASSERT_EQ(DynamicCuckooFilter::Create(o, &f), DynamicStatus::kOk);
  const uint64_t hashes[] = {0x9e3779b97f4a7c15ULL, 0x3c6ef372fe94f82aULL,
                             0xdaa66d2c7ddf743fULL, 0x8000000000000000ULL,
                             0xdaa66d2c7ddf743fULL};
  for (uint64_t h : hashes) ASSERT_EQ(f->InsertHash(h), DynamicStatus::kOk);
  std::string bytes;
  f->Save(&bytes);
  const char header[] = "SFDC\x05\x01\x00\x00";
  ASSERT_EQ(bytes.compare(0, 8, header, 8), 0);
  EXPECT_EQ(DecodeFixed64(bytes.data() + 8), 0x3f847ae147ae147bULL);  // 0.01
  EXPECT_EQ(DecodeFixed64(bytes.data() + 16), 8u);
  EXPECT_EQ(DecodeFixed64(bytes.data() + 24), 0u);
  EXPECT_EQ(DecodeFixed64(bytes.data() + 32), 5u);  // size
  EXPECT_EQ(DecodeFixed64(bytes.data() + 40), 0u);
  EXPECT_EQ(DecodeFixed64(bytes.data() + 48), 0u);
  EXPECT_EQ(bytes[56], 0);  // level
  EXPECT_EQ(bytes[57], 4);  // slots
  EXPECT_EQ(bytes[58], 6);  // F: 1% shared among the default plan's phases
  const uint64_t words = (128 * 4 * (6 + 10) + 63) / 64;
  // Header, words, no copy counts, checked list (4 distinct hashes), checksum.
  ASSERT_EQ(bytes.size(), 64 + 8 * words + 8 + 8 + 4 * 12 + 4);
  EXPECT_EQ(DecodeFixed64(bytes.data() + 64 + 8 * words), 0u);
  EXPECT_EQ(DecodeFixed64(bytes.data() + 64 + 8 * words + 8), 4u);
  for (uint64_t h : hashes) EXPECT_TRUE(DocContains(bytes, h)) << std::hex << h;
  uint64_t found = 0;
  for (uint64_t i = 1; i <= 2000; ++i) found += DocContains(bytes, Mix64(i));
  EXPECT_LE(found, 5u);  // the decoder is no "always true"
  EXPECT_EQ(ContentChecksum(bytes.data(), bytes.size()), 0x5b25ca78u);
}

TEST(GrowingFormatTest, RoundTripsThroughGrowthAndCheckedMode) {
  for (bool checked : {false, true}) {
    auto f = test::Make(0.001, 500, checked);
    for (uint64_t i = 0; i < 50000; ++i) ASSERT_EQ(f->InsertHash(Mix64(i)), DynamicStatus::kOk);
    for (uint64_t i = 0; i < 50000; i += 3) ASSERT_EQ(f->EraseHash(Mix64(i)), DynamicStatus::kOk);
    std::string bytes;
    f->Save(&bytes);
    ASSERT_EQ(bytes[4], 5);
    std::unique_ptr<DynamicCuckooFilter> g;
    ASSERT_EQ(DynamicCuckooFilter::Load(bytes, &g), DynamicStatus::kOk);
    EXPECT_EQ(g->Size(), f->Size());
    EXPECT_EQ(g->MemoryBytes(), f->MemoryBytes());
    EXPECT_EQ(g->ExpectedFpr(), f->ExpectedFpr());
    for (uint64_t i = 1; i < 50000; i += 3) ASSERT_TRUE(g->ContainsHash(Mix64(i))) << i;
    for (uint64_t i = 2; i < 50000; i += 3) ASSERT_TRUE(g->ContainsHash(Mix64(i))) << i;
    // It goes on growing as the original would.
    for (uint64_t i = 50000; i < 100000; ++i) {
      ASSERT_EQ(g->InsertHash(Mix64(i)), DynamicStatus::kOk);
      ASSERT_EQ(f->InsertHash(Mix64(i)), DynamicStatus::kOk);
    }
    std::string again, original;
    g->Save(&again);
    f->Save(&original);
    EXPECT_EQ(again, original);
    if (checked) {
      EXPECT_EQ(g->EraseHash(Mix64(0)), DynamicStatus::kNotFound);  // erased before the save
    }
  }
}

TEST(GrowingFormatTest, LoadRefusesDamagedAndRewrittenInput) {
  auto f = test::Make(0.01, 100, true);
  for (uint64_t i = 0; i < 300; ++i) ASSERT_EQ(f->InsertHash(Mix64(i)), DynamicStatus::kOk);
  std::string bytes;
  f->Save(&bytes);
  std::unique_ptr<DynamicCuckooFilter> g;
  for (size_t n = 0; n < bytes.size(); n += 7) {
    EXPECT_EQ(DynamicCuckooFilter::Load(bytes.substr(0, n), &g), DynamicStatus::kCorrupt) << n;
  }
  for (size_t i = 0; i < bytes.size(); i += 5) {
    std::string b = bytes;
    b[i] ^= 0x10;
    EXPECT_EQ(DynamicCuckooFilter::Load(b, &g), DynamicStatus::kCorrupt) << i;
  }
  // Fields rewritten under a valid checksum: each refused.
  auto rewritten = [&](size_t at, uint8_t value) {
    std::string b = bytes;
    b[at] = static_cast<char>(value);
    return DynamicCuckooFilter::Load(test::Resealed(b), &g);
  };
  EXPECT_EQ(rewritten(5, 3), DynamicStatus::kCorrupt);    // an unknown flag
  EXPECT_EQ(rewritten(6, 1), DynamicStatus::kCorrupt);    // reserved
  EXPECT_EQ(rewritten(56, 40), DynamicStatus::kCorrupt);  // level past 2^39 buckets
  EXPECT_EQ(rewritten(56, 1), DynamicStatus::kCorrupt);   // more words than the input
  EXPECT_EQ(rewritten(57, 8), DynamicStatus::kCorrupt);   // 8 slots
  EXPECT_EQ(rewritten(57, 3), DynamicStatus::kCorrupt);   // 3 slots
  EXPECT_EQ(rewritten(58, 48), DynamicStatus::kCorrupt);  // F past the maximum
  EXPECT_EQ(rewritten(58, 3), DynamicStatus::kCorrupt);   // F below the minimum
  EXPECT_EQ(rewritten(60, 1), DynamicStatus::kCorrupt);   // reserved
  EXPECT_EQ(rewritten(32, 0xff), DynamicStatus::kCorrupt);  // size past the entries
  // A head with no tail, which no Insert writes: in an empty filter, the
  // first slot's head.
  std::string empty;
  test::Make(0.01, 100)->Save(&empty);
  empty[64] = 1;
  EXPECT_EQ(DynamicCuckooFilter::Load(test::Resealed(empty), &g), DynamicStatus::kCorrupt);
  EXPECT_EQ(DynamicCuckooFilter::Load(bytes, &g), DynamicStatus::kOk);
}

// Copies that find their two buckets full are counted beside an entry;
// the counts are saved, checked and loaded, and erases take them first.
TEST(GrowingFormatTest, CopyCountsRoundTrip) {
  // Three keys with first bucket 0 and one tag: their 12 copies have the
  // 8 slots of two 4-slot buckets (initial_capacity 100: 128 buckets).
  std::vector<uint64_t> keys;
  const uint64_t tag = 0x5a;
  for (uint64_t i = 1; keys.size() < 3; ++i) {
    const uint64_t h = Mix64(i);
    if (FastRange64(h, 128) == 0 && GrowingTag(h) == tag) keys.push_back(h);
  }
  auto f = test::Make(0.01, 100);
  for (int c = 0; c < 4; ++c) {
    for (uint64_t h : keys) ASSERT_EQ(f->InsertHash(h), DynamicStatus::kOk);
  }
  for (uint64_t h : keys) EXPECT_EQ(f->InsertHash(h), DynamicStatus::kTooManyCopies);
  std::string bytes;
  f->Save(&bytes);
  const unsigned fp_bits = static_cast<uint8_t>(bytes[58]);
  const uint64_t words = (128 * 4 * (fp_bits + 10) + 63) / 64;
  ASSERT_EQ(static_cast<uint8_t>(bytes[57]), 4u);  // no growth: counts instead
  // 12 copies, 8 slots: 4 counted, each beside an entry of its key.
  const uint64_t counted = DecodeFixed64(bytes.data() + 64 + 8 * words);
  uint32_t copies = 0;
  for (uint64_t i = 0; i < counted; ++i) {
    copies += DecodeFixed32(bytes.data() + 64 + 8 * words + 8 + 20 * i + 16);
  }
  EXPECT_EQ(copies, 4u);
  std::unique_ptr<DynamicCuckooFilter> g;
  ASSERT_EQ(DynamicCuckooFilter::Load(bytes, &g), DynamicStatus::kOk);
  EXPECT_EQ(g->MemoryBytes(), f->MemoryBytes());
  // Erase the copies one by one: each key matches while it has one.
  for (int c = 0; c < 4; ++c) {
    for (size_t k = 0; k < keys.size(); ++k) {
      ASSERT_EQ(g->EraseHash(keys[k]), DynamicStatus::kOk);
      for (size_t j = 0; j < keys.size(); ++j) {
        if (c < 3 || j > k) {
          ASSERT_TRUE(g->ContainsHash(keys[j])) << c << " " << j;
        }
      }
    }
  }
  EXPECT_EQ(g->Size(), 0u);
  // A count beside an entry the pair does not hold: refused.
  std::string b = bytes;
  b[64 + 8 * words + 8 + 8] ^= 1;  // the payload's last bit: its marker
  EXPECT_EQ(DynamicCuckooFilter::Load(test::Resealed(b), &g), DynamicStatus::kCorrupt);
}

TEST(GrowingFormatTest, FormatVersionOption) {
  std::string bytes;
  for (uint32_t v : {0u, 5u}) {
    auto f = test::Make(0.01, 100, false, v);
    ASSERT_NE(f, nullptr) << v;
    bytes.clear();
    f->Save(&bytes);
    EXPECT_EQ(bytes[4], 5) << v;
  }
  // Versions 1 to 3 are read only (dynamic_legacy_test.cc).
  DynamicCuckooOptions o;
  std::unique_ptr<DynamicCuckooFilter> f;
  for (uint32_t v : {1u, 2u, 3u, 4u, 6u}) {
    o.format_version = v;
    EXPECT_EQ(DynamicCuckooFilter::Create(o, &f), DynamicStatus::kInvalidArgument) << v;
  }
}

}  // namespace
}  // namespace sstfilter
