// Pins the on-disk format (docs/format.md): key hashing, the trailer, and
// whole filters byte for byte (the small form: small_format_test.cc). If
// one of these fails, the format changed: bump kFormatVersion and document
// it; never edit the golden values alone.
// One exception: a builder may change which valid filter it writes (the
// fuse builder's peeling order decides which slot holds which key, and a
// wide slot's top bit is free when its key is checked on f bits) without
// a format change. Then its goldens are updated in the same commit, the
// documented-layout decoder below still accepts the new bytes, and the
// old bytes are kept in tests/data and read by today's reader.

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "filters/bloom.h"
#include "filters/bloom_kind.h"
#include "filters/cuckoo_filter.h"
#include "filters/fuse_filter.h"
#include "filters/fuse_test_seam.h"
#include "filters/reader_dispatch.h"
#include "format/hash.h"
#include "format/trailer.h"
#include "format_test_util.h"

namespace sstfilter {
namespace {

using test::Hex;

std::string BuildFrom(FilterBuilder* builder, int n) {
  for (int i = 0; i < n; ++i) {
    const std::string key = "key" + std::to_string(i);
    builder->AddHash(KeyHash(key.data(), key.size()));
  }
  std::string filter;
  builder->Finish(&filter);
  return filter;
}

TEST(FormatTest, KeyHashIsPinned) {
  EXPECT_EQ(KeyHash("", 0), 5414707161898695977ull);
  EXPECT_EQ(KeyHash("sstfilter", 9), 18281375529999297694ull);
  // The unseeded value xxHash publishes for empty input: the goldens
  // below come from the reference XXH3, not from some other build of it.
  EXPECT_EQ(XXH3_64bits("", 0), 0x2d06800538d394c2ull);
}

// XXH3 treats keys of these lengths in different code paths (0, 1-3, 4-8,
// 9-16, 17-128, 129-240, over 240 bytes; both ends of each, and over 1024
// bytes, where a seeded long hash scrambles between blocks); each is
// pinned, with the checksum's seed too, so an xxhash.h whose XXH3 differs
// (before 0.8.0, or a future change) fails here instead of writing
// filters other builds misread.
TEST(FormatTest, KeyHashIsPinnedInEveryXxh3LengthClass) {
  struct Golden {
    size_t length;
    uint64_t key_hash;
    uint32_t checksum;
  };
  const Golden golden[] = {
      {0, 5414707161898695977ull, 1363014624u},
      {1, 18238717008130046027ull, 1435839207u},
      {3, 16366960631281598584ull, 716425865u},
      {4, 4469051642180286544ull, 1643581988u},
      {8, 182388076779102591ull, 2339478955u},
      {9, 6124212130616862030ull, 574162282u},
      {16, 14034137616869704957ull, 396022942u},
      {17, 6238504698167284354ull, 3688916866u},
      {128, 7624897642213696949ull, 4288329296u},
      {129, 1444300533950599818ull, 838805653u},
      {240, 13650654686610712937ull, 1664635175u},
      {241, 3220684637401886063ull, 2578023453u},
      {1000, 13340533701378161510ull, 1224444636u},
      {5000, 15446834666431423ull, 3868149259u},
  };
  for (const Golden& g : golden) {
    std::string key(g.length, '\0');
    for (size_t i = 0; i < g.length; ++i) key[i] = static_cast<char>(i * 37 + 11);
    EXPECT_EQ(KeyHash(key.data(), key.size()), g.key_hash) << "length " << g.length;
    EXPECT_EQ(ContentChecksum(key.data(), key.size()), g.checksum) << "length " << g.length;
  }
}

TEST(FormatTest, TrailerLayout) {
  std::string filter = "payload";
  Trailer t;
  t.kind = kCuckooSemiSortedKind;
  t.param_a = 12;
  t.param_b = 3;
  AppendTrailer(t, 0, &filter);
  ASSERT_EQ(filter.size(), 7u + kTrailerSize);
  EXPECT_EQ(filter[7], 3);                        // kind
  EXPECT_EQ(filter[8], 12);                       // param_a
  EXPECT_EQ(filter[9], 3);                        // param_b
  EXPECT_EQ(static_cast<uint8_t>(filter[10]), 0xF1);  // marker | version 1
  const uint32_t sum = ContentChecksum(filter.data(), 11);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(static_cast<uint8_t>(filter[11 + i]), static_cast<uint8_t>(sum >> (8 * i)));
  }
  Trailer parsed;
  size_t payload = 0;
  ASSERT_TRUE(ParseTrailer(filter.data(), filter.size(), &parsed, &payload));
  EXPECT_EQ(payload, 7u);
  EXPECT_EQ(parsed.kind, kCuckooSemiSortedKind);
  // The checksum covers only this filter, not what precedes it in *dst.
  std::string two = "prefix";
  AppendTrailer(t, two.size(), &two);
  EXPECT_TRUE(ParseTrailer(two.data() + 6, two.size() - 6, &parsed, &payload));
}

TEST(FormatTest, GoldenBloom) {
  BloomBuilder builder(10);
  // 5 keys x 10 bits = 7 bytes, one short line; kind 1, 6 probes.
  EXPECT_EQ(Hex(BuildFrom(&builder, 5)), "f04ac32d2830b1" "01060" "0f1" "bf575bce");
  const std::string big = BuildFrom(&builder, 200);
  EXPECT_EQ(big.size(), 4u * 64 + 8);
  EXPECT_EQ(ContentChecksum(big.data(), big.size()), 556879119u);
}

TEST(FormatTest, GoldenCuckoo) {
  CuckooBuilder plain(12, CuckooVariant::kPlain);
  // 5 keys in 60 bits: 2 buckets of 4 x 7-bit fingerprints; kind 2, f = 7.
  EXPECT_EQ(Hex(BuildFrom(&plain, 5)), "2a3d0060a2d401" "02070" "0f1" "f15c320d");
  CuckooBuilder semi(12, CuckooVariant::kSemiSorted);
  // 2 semi-sorted buckets of 12 + 4 x 4 bits; kind 3, f = 8.
  EXPECT_EQ(Hex(BuildFrom(&semi, 5)), "2f0050ef2c204e" "03080" "0f1" "b709940b");
  const std::string big = BuildFrom(&semi, 1000);
  EXPECT_EQ(ContentChecksum(big.data(), big.size()), 417388093u);
}

// The fuse payload decoded with docs/format.md's formulas, written out here
// independently of fuse_hashing.h: every added key's slots must XOR to its
// fingerprint.
void ExpectFuseMatchesDocumentedLayout(const std::string& filter, int n, int* wide_keys) {
  ASSERT_GE(filter.size(), kTrailerSize + 16);
  const size_t t = filter.size() - kTrailerSize;
  ASSERT_EQ(filter[t], 4);  // kind 4: fuse
  const unsigned f = static_cast<uint8_t>(filter[t + 1]);
  const unsigned arity = static_cast<uint8_t>(filter[t + 2]);
  ASSERT_TRUE(arity == 3 || arity == 4);
  const auto byte = [&](size_t i) {
    return static_cast<uint64_t>(static_cast<uint8_t>(filter[i]));
  };
  uint64_t seed = 0;
  for (int i = 0; i < 8; ++i) seed |= byte(i) << (8 * i);
  uint64_t segment_count = 0;
  for (int i = 0; i < 4; ++i) segment_count |= byte(8 + i) << (8 * i);
  const unsigned log = static_cast<unsigned>(byte(12));
  const uint64_t wide = byte(13) | byte(14) << 8 | byte(15) << 16;
  const uint64_t length = uint64_t{1} << log;
  const uint64_t slots = (segment_count + arity - 1) * length;
  ASSERT_LT(wide, segment_count + arity - 1);
  ASSERT_EQ(t, 16 + (slots * f + wide * length + 7) / 8);
  // Slots of the first `wide` segments are f+1 bits, then f bits.
  const uint64_t wide_slots = wide * length;
  auto slot_value = [&](uint64_t slot) {
    const uint64_t start = slot < wide_slots ? slot * (f + 1) : wide_slots * (f + 1) + (slot - wide_slots) * f;
    const unsigned width = slot < wide_slots ? f + 1 : f;
    uint64_t v = 0;
    for (unsigned b = 0; b < width; ++b) {
      const uint64_t bit = start + b;
      v |= ((byte(16 + bit / 8) >> (bit % 8)) & 1) << b;
    }
    return v;
  };
  for (int i = 0; i < n; ++i) {
    const std::string key = "key" + std::to_string(i);
    uint64_t h = KeyHash(key.data(), key.size());
    if (seed != 0) {  // murmur3's 64-bit finalizer of h + seed
      h += seed;
      h ^= h >> 33;
      h *= 0xff51afd7ed558ccdULL;
      h ^= h >> 33;
      h *= 0xc4ceb9fe1a85ec53ULL;
      h ^= h >> 33;
    }
    const uint64_t mask = length - 1;
    const uint64_t base =
        static_cast<uint64_t>((static_cast<Uint128>(h) * (segment_count * length)) >> 64);
    uint64_t last = (base + 2 * length) ^ (h & mask);
    uint64_t x = slot_value(base);
    x ^= slot_value((base + length) ^ ((h >> 18) & mask));
    x ^= slot_value(last);
    if (arity == 4) {
      last = (base + 3 * length) ^ (((h * 0x9e3779b97f4a7c15ULL) >> 46) & mask);
      x ^= slot_value(last);
    }
    // Checked on the last slot's width: f+1 bits if it is wide.
    const unsigned checked = last < wide_slots ? f + 1 : f;
    const uint64_t fp = (h ^ (h >> 32)) & ((uint64_t{1} << checked) - 1);
    ASSERT_EQ(x & ((uint64_t{1} << checked) - 1), fp) << "key " << i;
    *wide_keys += checked > f;
  }
}

// The first layout (no wide segments), as written before wide segments
// existed: these bytes must keep reading.
TEST(FormatTest, GoldenFuseFirstLayout) {
  int wide_keys = 0;
  // 1000 keys at 10 bits/key: 3-wise, 7-bit fingerprints, 9 segments of
  // 2^7 slots, 11 in the array: 1408 slots, 1232 bytes.
  FuseShape shape;
  shape.arity = 3;
  shape.fp_bits = 7;
  shape.segment_log = 7;
  shape.segment_count = 9;
  FuseTestBuilder ten(10, FuseTestHooks{0, shape});
  const std::string three = BuildFrom(&ten, 1000);
  ASSERT_EQ(three.size(), 16 + 1408 * 7 / 8 + kTrailerSize);
  // Header: seed 0 (first attempt), 9 segments, log 7, no wide segments.
  EXPECT_EQ(Hex(three.substr(0, 16)), "0000000000000000" "09000000" "07" "000000");
  EXPECT_EQ(Hex(three.substr(16, 16)), "10801e60dfcc000180260b0000ac0c00");
  // Trailer: kind 4, f = 7, arity 3.
  EXPECT_EQ(Hex(three.substr(three.size() - 8)), "040703f1" "0fcd96d8");
  ExpectFuseMatchesDocumentedLayout(three, 1000, &wide_keys);

  // 2000 keys at 12 bits/key: 4-wise, 9-bit fingerprints, 38 segments of
  // 2^6 slots, 41 in the array.
  shape.arity = 4;
  shape.fp_bits = 9;
  shape.segment_log = 6;
  shape.segment_count = 38;
  FuseTestBuilder twelve(12, FuseTestHooks{0, shape});
  const std::string four = BuildFrom(&twelve, 2000);
  ASSERT_EQ(four.size(), 16 + 41 * 64 * 9 / 8 + kTrailerSize);
  EXPECT_EQ(Hex(four.substr(0, 16)), "0000000000000000" "26000000" "06" "000000");
  EXPECT_EQ(Hex(four.substr(16, 16)), "f29402300d8015000040000018ea2c3e");
  EXPECT_EQ(Hex(four.substr(four.size() - 8)), "040904f1" "287f8233");
  ExpectFuseMatchesDocumentedLayout(four, 2000, &wide_keys);

  // Two peelings forced to fail: the third attempt's seed,
  // 2 * 0x9e3779b97f4a7c15, and the keys remixed with it.
  FuseTestBuilder retried(12, FuseTestHooks{2, shape});
  const std::string remixed = BuildFrom(&retried, 2000);
  EXPECT_EQ(retried.last_attempts(), 3);
  EXPECT_EQ(Hex(remixed.substr(0, 16)), "2af894fe72f36e3c" "26000000" "06" "000000");
  EXPECT_EQ(ContentChecksum(remixed.data(), remixed.size()), 3244392570u);
  ExpectFuseMatchesDocumentedLayout(remixed, 2000, &wide_keys);
  EXPECT_EQ(wide_keys, 0);
}

TEST(FormatTest, GoldenFuseWideSegments) {
  int wide_keys = 0;
  // 1000 keys at 10 bits/key: 4-wise, 7-bit fingerprints, 40 segments of
  // 2^5 slots, 43 in the array, the first 7 of 8-bit slots: 1376 x 7 +
  // 7 x 32 bits, 1232 bytes. Keys with all four slots in them, those whose
  // first slot is in segments 0..3, are checked on 8 bits.
  // (At 1000 keys the builder itself now writes a cuckoo filter, the more
  // accurate there: the shape it would choose is given to it.)
  FuseTestBuilder ten(10, FuseTestHooks{0, ChooseFuseShape(1000, 10)});
  const std::string a = BuildFrom(&ten, 1000);
  ASSERT_EQ(a.size(), 16 + (1376 * 7 + 7 * 32) / 8 + kTrailerSize);
  // Header: seed 0, 40 segments, log 5, 7 wide segments (u24).
  EXPECT_EQ(Hex(a.substr(0, 16)), "0000000000000000" "28000000" "05" "070000");
  EXPECT_EQ(Hex(a.substr(16, 16)), "00f53b00500000000095003061390000");
  // Trailer: kind 4, f = 7, arity 4.
  EXPECT_EQ(Hex(a.substr(a.size() - 8)), "040704f1" "d4892f21");
  ExpectFuseMatchesDocumentedLayout(a, 1000, &wide_keys);
  EXPECT_GT(wide_keys, 50);  // 4 of 40 first segments: about 100 keys

  // 20000 keys at 12 bits/key: 4-wise, f = 10, 88 segments of 2^8 slots,
  // 91 in the array, 27 wide: 23296 x 10 + 27 x 256 bits.
  wide_keys = 0;
  FuseBuilder twelve(12);
  const std::string b = BuildFrom(&twelve, 20000);
  ASSERT_EQ(b.size(), 16 + (23296 * 10 + 27 * 256) / 8 + kTrailerSize);
  EXPECT_EQ(Hex(b.substr(0, 16)), "0000000000000000" "58000000" "08" "1b0000");
  EXPECT_EQ(Hex(b.substr(16, 16)), "00000000003000000000000000000d38");
  EXPECT_EQ(Hex(b.substr(b.size() - 8)), "040a04f1" "054f737d");
  EXPECT_EQ(ContentChecksum(b.data(), b.size()), 3333414541u);
  ExpectFuseMatchesDocumentedLayout(b, 20000, &wide_keys);
  EXPECT_GT(wide_keys, 4000);  // 24 of 88 first segments: about 5450 keys
}

// Filters written before the fuse builder peeled through a queue (other
// bytes, same format; tests/data/README.md): every key still matches
// through today's reader, and the bytes decode by docs/format.md.
TEST(FormatTest, FuseFiltersOfEarlierBuildsStillRead) {
  for (const char* name : {"fuse3_first_layout_1000.bin", "fuse4_wide_1000.bin"}) {
    SCOPED_TRACE(name);
    std::ifstream in(std::string(SSTFILTER_TEST_DATA_DIR) + "/fuse_scan_order/" + name,
                     std::ios::binary);
    ASSERT_TRUE(in.good());
    const std::string filter((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_EQ(filter.size(), 1256u);
    int wide_keys = 0;
    ExpectFuseMatchesDocumentedLayout(filter, 1000, &wide_keys);
    const auto reader = NewFilterReader(filter.data(), filter.size());
    std::vector<uint64_t> hashes;
    for (int i = 0; i < 1000; ++i) {
      const std::string key = "key" + std::to_string(i);
      hashes.push_back(KeyHash(key.data(), key.size()));
      ASSERT_TRUE(reader->MayMatch(hashes.back())) << key;
    }
    std::unique_ptr<bool[]> batch(new bool[hashes.size()]);
    reader->MayMatchBatch(hashes.size(), hashes.data(), batch.get());
    for (size_t i = 0; i < hashes.size(); ++i) ASSERT_TRUE(batch[i]) << "batched key" << i;
    // A reader that matched everything would pass the loop above.
    int absent_matches = 0;
    for (int i = 0; i < 10000; ++i) {
      const std::string key = "absent" + std::to_string(i);
      absent_matches += reader->MayMatch(KeyHash(key.data(), key.size()));
    }
    EXPECT_LT(absent_matches, 200);  // 2^-7 of 10000 is 78
  }
}

}  // namespace
}  // namespace sstfilter
