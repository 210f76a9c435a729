// DynamicCuckooFilter's saved form (docs/format.md): Save and Load round
// trips, version 2 for the first member's options, damaged input refused,
// and the golden bytes of format version 1.

#include "sstfilter/dynamic_cuckoo.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "dynamic_test_util.h"
#include "format/coding.h"
#include "format/hash.h"

namespace sstfilter {
namespace {

using test::Key;
using test::Make;

// Such a filter saves as version 2: the header, then the share and the
// load limit (docs/format.md). Load refuses a version 2 that states
// neither, or states values Create refuses.
TEST(DynamicCuckooTest, FirstMemberOptionsSaveAsVersion2) {
  DynamicCuckooOptions o;
  o.format_version = test::kLegacyFormat;
  o.target_fpr = 0.01;
  o.initial_capacity = 1000;
  o.first_member_fpr_share = 0.9;
  o.first_member_max_load = 0.9;
  std::unique_ptr<DynamicCuckooFilter> f;
  ASSERT_EQ(DynamicCuckooFilter::Create(o, &f), DynamicStatus::kOk);
  for (uint64_t i = 0; i < 5000; ++i) ASSERT_EQ(f->InsertHash(Mix64(i + 1)), DynamicStatus::kOk);
  std::string bytes;
  f->Save(&bytes);
  ASSERT_EQ(bytes[4], 2);
  ASSERT_EQ(DecodeFixed64(bytes.data() + 48), 0x3feccccccccccccdULL);  // 0.9
  ASSERT_EQ(DecodeFixed64(bytes.data() + 56), 0x3feccccccccccccdULL);
  std::unique_ptr<DynamicCuckooFilter> g;
  ASSERT_EQ(DynamicCuckooFilter::Load(bytes, &g), DynamicStatus::kOk);
  for (uint64_t i = 0; i < 5000; ++i) ASSERT_TRUE(g->ContainsHash(Mix64(i + 1))) << i;
  std::string again;
  g->Save(&again);
  EXPECT_EQ(again, bytes);
  // The standard schedule still saves as version 1.
  auto standard = Make(0.01, 1000, false, test::kLegacyFormat);
  std::string v1;
  standard->Save(&v1);
  EXPECT_EQ(v1[4], 1);
  // Rewritten fields with a valid checksum: refused all the same.
  auto rewrite = [&](uint64_t share_bits, uint64_t load_bits) {
    std::string b = bytes;
    for (int i = 0; i < 8; ++i) {
      b[48 + i] = static_cast<char>(share_bits >> (8 * i));
      b[56 + i] = static_cast<char>(load_bits >> (8 * i));
    }
    std::unique_ptr<DynamicCuckooFilter> h;
    return DynamicCuckooFilter::Load(test::Resealed(b), &h);
  };
  EXPECT_EQ(rewrite(0x3feccccccccccccdULL, 0x3feccccccccccccdULL), DynamicStatus::kOk);
  EXPECT_EQ(rewrite(0, 0), DynamicStatus::kCorrupt);                      // states neither
  EXPECT_EQ(rewrite(0x3ff0000000000000ULL, 0x3feccccccccccccdULL),       // share 1.0
            DynamicStatus::kCorrupt);
  EXPECT_EQ(rewrite(0x3fe0000000000000ULL, 0x3feccccccccccccdULL),       // share 0.5: another plan
            DynamicStatus::kCorrupt);
}

TEST(DynamicCuckooTest, SaveLoadRoundTrip) {
  for (bool checked : {false, true}) {
    auto f = Make(0.001, 500, checked, test::kLegacyFormat);
    for (uint64_t i = 0; i < 20000; ++i) ASSERT_EQ(f->Insert(Key(i)), DynamicStatus::kOk);
    for (uint64_t i = 0; i < 20000; i += 3) ASSERT_EQ(f->Erase(Key(i)), DynamicStatus::kOk);
    std::string bytes = "prefix";
    f->Save(&bytes);
    std::unique_ptr<DynamicCuckooFilter> g;
    ASSERT_EQ(DynamicCuckooFilter::Load(std::string_view(bytes).substr(6), &g),
              DynamicStatus::kOk);
    EXPECT_EQ(g->Size(), f->Size());
    EXPECT_EQ(g->MemoryBytes(), f->MemoryBytes());
    for (uint64_t i = 0; i < 20000; ++i) {
      ASSERT_EQ(g->Contains(Key(i)), f->Contains(Key(i))) << i;
      if (i % 3 != 0) {
        ASSERT_TRUE(g->Contains(Key(i)));
      }
    }
    std::string again;
    g->Save(&again);
    EXPECT_EQ(again, bytes.substr(6));
    // The loaded filter keeps working.
    for (uint64_t i = 20000; i < 30000; ++i) ASSERT_EQ(g->Insert(Key(i)), DynamicStatus::kOk);
    for (uint64_t i = 1; i < 30000; i += 3) ASSERT_TRUE(g->Contains(Key(i)));
  }
}

TEST(DynamicCuckooTest, DamagedInputIsCorrupt) {
  auto f = Make(0.01, 100, true, test::kLegacyFormat);
  for (uint64_t i = 0; i < 300; ++i) ASSERT_EQ(f->Insert(Key(i)), DynamicStatus::kOk);
  std::string bytes;
  f->Save(&bytes);
  std::unique_ptr<DynamicCuckooFilter> g;
  for (size_t len = 0; len < bytes.size(); ++len) {
    ASSERT_EQ(DynamicCuckooFilter::Load(std::string_view(bytes.data(), len), &g),
              DynamicStatus::kCorrupt) << len;
  }
  for (size_t pos = 0; pos < bytes.size(); ++pos) {
    for (int bit : {0, 3, 7}) {
      std::string damaged = bytes;
      damaged[pos] = static_cast<char>(damaged[pos] ^ (1 << bit));
      ASSERT_EQ(DynamicCuckooFilter::Load(damaged, &g), DynamicStatus::kCorrupt) << pos;
    }
  }
  EXPECT_EQ(g, nullptr);
  EXPECT_EQ(DynamicCuckooFilter::Load(bytes + "x", &g), DynamicStatus::kCorrupt);
  EXPECT_EQ(DynamicCuckooFilter::Load("not a filter at all, just text....."
                                      "...........................", &g),
            DynamicStatus::kCorrupt);
}

// docs/format.md, "Dynamic cuckoo filter": format version 1. The header
// bytes and a hash of the whole encoding are pinned; the slots are checked
// by an independent decoder that follows the document (bit-packed slots,
// little-endian words, bucket and fingerprint from the hash). A change here
// is a format change and needs a new version number.
TEST(DynamicCuckooTest, GoldenBytes) {
  DynamicCuckooOptions o;
  o.format_version = test::kLegacyFormat;
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
  std::string hex;
  for (size_t i = 0; i < 88; ++i) {
    char b[3];
    std::snprintf(b, sizeof(b), "%02x", static_cast<unsigned char>(bytes[i]));
    hex += b;
  }
  EXPECT_EQ(hex,
            // magic "SFDC", version 1, flags 1 (checked), reserved
            "5346444301010000"
            "7b14ae47e17a843f"   // target_fpr 0.01 (IEEE-754 bits)
            "0800000000000000"   // initial_capacity 8
            "0000000000000000"   // expected_max_keys 0
            "0500000000000000"   // size 5
            "0100000000000000"   // 1 member, reserved
            "8000000000000000"   // base buckets 128 (the minimum)
            "001c080000000000"   // level 0, l = 28 = 11 + 17, stable bits 8
            "0500000000000000"   // entries 5 (one in the zero set)
            "1000000000000000"   // zero-set cells 16
            "0100000000000000");  // zero-set entries 1
  ASSERT_EQ(bytes.size(), 2076u);  // 88 + 128*4*28/8 + 16*8 + 8 + 8 + 4*12 + 4
  EXPECT_EQ(XXH3_64bits(bytes.data(), bytes.size()), 0x5f3635e2dcfd2ddeULL);
  EXPECT_EQ(DecodeFixed32(bytes.data() + bytes.size() - 4),
            ContentChecksum(bytes.data(), bytes.size() - 4));
  // Independent decoder: slot k of bucket b is bits [(4b+k)*28, +28) of the
  // little-endian words from offset 88.
  const char* words = bytes.data() + 88;
  auto slot = [&](uint64_t b, unsigned k) {
    const uint64_t pos = (4 * b + k) * 28;
    uint64_t v = 0;
    for (unsigned bit = 0; bit < 28; ++bit) {
      const uint64_t p = pos + bit;
      v |= static_cast<uint64_t>((static_cast<unsigned char>(words[p / 8]) >> (p % 8)) & 1) << bit;
    }
    return v;
  };
  int copies_of_third = 0;
  for (int i = 0; i < 4; ++i) {
    const Uint128 prod = static_cast<Uint128>(hashes[i]) * 128;
    const uint64_t i1 = static_cast<uint64_t>(prod >> 64);
    const uint64_t fp = static_cast<uint64_t>(prod) >> 36;
    if (fp == 0) {  // 2^63 * 128: bucket 64, fingerprint 0 -> zero set
      EXPECT_EQ(i1, 64u);
      const char* cells = words + 128 * 4 * 28 / 8;
      int found = 0;
      for (int c = 0; c < 16; ++c) found += DecodeFixed64(cells + 8 * c) == i1 + 1;
      EXPECT_EQ(found, 1);
      continue;
    }
    const uint64_t t = FastRange64((fp & 0xff) * 0x9e3779b97f4a7c15ULL, 128);
    const uint64_t i2 = (t + 128 - i1) % 128;
    int found = 0;
    for (unsigned k = 0; k < 4; ++k) {
      found += slot(i1, k) == fp;
      if (i2 != i1) found += slot(i2, k) == fp;
    }
    EXPECT_EQ(found, i == 2 ? 2 : 1) << i;
    if (i == 2) copies_of_third = found;
  }
  EXPECT_EQ(copies_of_third, 2);
}

}  // namespace
}  // namespace sstfilter
