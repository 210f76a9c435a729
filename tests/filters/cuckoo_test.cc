// Cuckoo-specific properties: addressing, bucket codecs, shape choice, and
// the placement fallbacks (stash, larger table).

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "filters/cuckoo_filter.h"
#include "filters/cuckoo_hashing.h"
#include "filters/cuckoo_table.h"
#include "filters/filter.h"
#include "format/hash.h"
#include "test_util.h"

namespace sstfilter {
namespace {

TEST(CuckooHashingTest, AltBucketIsAnInvolutionForAnyTableSize) {
  uint64_t state = 1;
  for (uint64_t buckets : {1ull, 2ull, 3ull, 7ull, 1000ull, 262143ull, 262144ull, 10000019ull}) {
    for (int f : {4, 9, 16, 32}) {
      CuckooHashing hashing(f, buckets);
      for (int i = 0; i < 2000; ++i) {
        const CuckooAddress a = hashing.Locate(test::SplitMix(&state));
        ASSERT_LT(a.bucket, buckets);
        ASSERT_GE(a.fp, 1u);
        ASSERT_LE(a.fp, (uint64_t{1} << f) - 1);
        const uint64_t alt = hashing.AltBucket(a.bucket, a.fp);
        ASSERT_LT(alt, buckets);
        ASSERT_EQ(hashing.AltBucket(alt, a.fp), a.bucket);
      }
    }
  }
}

TEST(BitsTest, WriterAndLoadsAgreeAtEveryWidthAndOffset) {
  // Fields of every width 0..64 at many bit offsets, read back wherever
  // LoadBits' one load can.
  std::vector<std::pair<uint64_t, unsigned>> fields;
  uint64_t state = 7;
  for (int round = 0; round < 40; ++round) {
    for (unsigned w = 0; w <= 64; ++w) {
      const uint64_t r = test::SplitMix(&state);
      fields.emplace_back(w == 64 ? r : r & ((uint64_t{1} << w) - 1), w);
    }
  }
  std::string buf(fields.size() * 8 + 16, '\xff');  // writer overwrites
  BitWriter out(&buf[0]);
  for (const auto& f : fields) {
    // Bits above the width must be ignored.
    const uint64_t above = f.second < 64 ? ~uint64_t{0} << f.second : 0;
    out.Put(f.first | above, f.second);
  }
  out.Flush();
  uint64_t pos = 0;
  int checked = 0;
  for (const auto& f : fields) {
    if (f.second > 0 && pos % 8 + f.second <= 64) {  // LoadBits' contract
      ASSERT_EQ(LoadBits(buf.data(), pos, f.second), f.first) << "width " << f.second;
      ++checked;
    }
    pos += f.second;
  }
  EXPECT_GT(checked, 2000);
}

TEST(CuckooTableTest, SemiSortedCodesAreLexicographicRanks) {
  // Every sorted nibble multiset (C(19, 4) = 3876 of them) gets the code
  // equal to its lexicographic rank (docs/format.md) and decodes back.
  SemiSortedBucketCodec codec(8);
  unsigned rank = 0;
  for (unsigned a = 0; a < 16; ++a)
    for (unsigned b = a; b < 16; ++b)
      for (unsigned c = b; c < 16; ++c)
        for (unsigned d = c; d < 16; ++d, ++rank) {
          // High parts 1..4 keep every slot a non-empty fingerprint.
          const uint32_t slots[4] = {(4u << 4) | d, (1u << 4) | b, (3u << 4) | c, (2u << 4) | a};
          std::string table(16, '\0');
          BitWriter out(&table[0]);
          codec.Encode(slots, &out);
          out.Flush();
          ASSERT_EQ(LoadBits(table.data(), 0, 12), rank);
          uint32_t got[4];
          codec.Decode(table.data(), 0, got);
          std::vector<uint32_t> want(slots, slots + 4), have(got, got + 4);
          std::sort(want.begin(), want.end());
          std::sort(have.begin(), have.end());
          ASSERT_EQ(have, want);
        }
  EXPECT_EQ(rank, 3876u);
}

// Whether `codec` matches fp in bucket b, as the readers ask it: one word
// where the bucket fits one, the wide match otherwise.
template <typename Codec>
bool Matches(const Codec& codec, const char* base, uint64_t b, uint32_t fp) {
  return codec.word_sized() ? codec.WordContains(codec.LoadWord(base, b), fp)
                            : codec.WideContains(base, b, fp);
}

// Encodes 64 buckets with Codec, decodes them, and checks QueryCodec's
// answers (by default Codec's own) against the slots written.
template <typename Codec, typename QueryCodec = Codec>
void CheckCodecRoundTrip(int f) {
  Codec codec(f);
  const QueryCodec query(f);
  constexpr uint64_t kBuckets = 64;
  std::string table((kBuckets * codec.bucket_bits() + 7) / 8 + 8, '\0');
  std::vector<std::array<uint32_t, 4>> want(kBuckets);
  BitWriter out(&table[0]);
  uint64_t state = f;
  const uint64_t max_fp = (uint64_t{1} << f) - 1;
  for (uint64_t b = 0; b < kBuckets; ++b) {
    for (auto& s : want[b]) {
      // Mix empty slots and extreme values in.
      const uint64_t r = test::SplitMix(&state);
      s = r % 5 == 0 ? 0 : r % 7 == 0 ? static_cast<uint32_t>(max_fp)
                                      : static_cast<uint32_t>(1 + r % max_fp);
    }
    codec.Encode(want[b].data(), &out);
  }
  out.Flush();
  for (uint64_t b = 0; b < kBuckets; ++b) {
    std::array<uint32_t, 4> got;
    codec.Decode(table.data(), b, got.data());
    auto expect = want[b];
    std::sort(expect.begin(), expect.end());
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, expect) << "f=" << f << " bucket " << b;
    for (uint32_t fp : want[b]) {
      if (fp != 0) {
        ASSERT_TRUE(Matches(query, table.data(), b, fp));
      }
    }
    // The match answers exactly "is fp one of the slots" for any fp, near
    // misses included (the word-at-a-time match must not over-match).
    for (int q = 0; q < 200; ++q) {
      const uint64_t r = test::SplitMix(&state);
      uint32_t fp = static_cast<uint32_t>(1 + r % max_fp);
      if (q % 2 == 0 && want[b][q % 4] != 0) {
        fp = want[b][q % 4] ^ (1u << ((r >> 40) % f));  // one bit away
        if (fp == 0 || fp > max_fp) continue;
      }
      const bool present = std::find(got.begin(), got.end(), fp) != got.end();
      ASSERT_EQ(Matches(query, table.data(), b, fp), present) << "f=" << f << " fp=" << fp;
    }
  }
}

TEST(CuckooTableTest, PlainCodecRoundTrips) {
  for (int f = kMinFingerprintBits; f <= kMaxFingerprintBits; ++f) {
    CheckCodecRoundTrip<PlainBucketCodec>(f);
  }
}

TEST(CuckooTableTest, SemiSortedCodecRoundTripsAndSavesOneBitPerEntry) {
  for (int f = kMinFingerprintBits; f <= kMaxFingerprintBits; ++f) {
    CheckCodecRoundTrip<SemiSortedBucketCodec>(f);
    EXPECT_EQ(SemiSortedBucketCodec(f).bucket_bits() + 4, PlainBucketCodec(f).bucket_bits());
  }
}

template <int... Offset>
void CheckFixedSemiSortedCodecs(std::integer_sequence<int, Offset...>) {
  (CheckCodecRoundTrip<SemiSortedBucketCodec, FixedSemiSortedCodec<8 + Offset>>(8 + Offset), ...);
}

TEST(CuckooTableTest, FixedWidthSemiSortedCodecsAnswerExactlyAsSlotsDo) {
  // Readers query f = 8..24 only through these (cuckoo_kind.h): their
  // lane matches must answer exactly as the run-time codec's slot by slot
  // one, on the same bytes.
  CheckFixedSemiSortedCodecs(std::make_integer_sequence<int, 17>());
}

TEST(CuckooShapeTest, FitsTheBudgetAtAtMost95PercentLoad) {
  for (size_t n : {20, 100, 1000, 65536, 1000000}) {
    for (double bpk = 4; bpk <= 100; bpk += 0.75) {
      for (auto v : {CuckooVariant::kAuto, CuckooVariant::kPlain, CuckooVariant::kSemiSorted}) {
        if (v == CuckooVariant::kPlain && bpk < kMinPlainCuckooBitsPerKey) continue;
        const CuckooShape s = ChooseCuckooShape(n, bpk, v);
        const double bits = static_cast<double>(s.num_buckets) * CuckooBucketBits(s.kind, s.fp_bits);
        const double load = static_cast<double>(n) / (4.0 * s.num_buckets);
        ASSERT_LE(load, 0.95 * 1.001) << n << " " << bpk;
        if (n >= 1000 || bpk >= 8) {
          ASSERT_LE(bits, n * bpk) << "n=" << n << " bpk=" << bpk;
        }
      }
    }
  }
}

// The engine adapters reject such budgets; the core must still answer
// without an undefined cast: NaN or nothing buys no table (the Bloom
// fallback), more than kMaxBitsPerKey buys what kMaxBitsPerKey does.
TEST(CuckooShapeTest, NonFiniteBudgetsGetTheFallbackOrTheCap) {
  for (auto v : {CuckooVariant::kAuto, CuckooVariant::kPlain, CuckooVariant::kSemiSorted}) {
    for (double none : {std::nan(""), -HUGE_VAL, -1.0, 0.0}) {
      const CuckooShape s = ChooseCuckooShape(1000, none, v);
      EXPECT_FALSE(s.fits_budget) << none;
      EXPECT_GE(s.num_buckets * kSlotsPerBucket, 1000u) << none;
    }
    const CuckooShape cap = ChooseCuckooShape(1000, kMaxBitsPerKey, v);
    for (double more : {HUGE_VAL, 1e300}) {
      const CuckooShape s = ChooseCuckooShape(1000, more, v);
      EXPECT_EQ(s.kind, cap.kind);
      EXPECT_EQ(s.fp_bits, cap.fp_bits);
      EXPECT_EQ(s.num_buckets, cap.num_buckets);
    }
  }
  // Builders take NaN as the minimum budget: a filter without false
  // negatives (the plain variant's minimum is higher: a Bloom filter).
  const auto keys = test::MakeKeys(1000, 23);
  for (auto v : {CuckooVariant::kAuto, CuckooVariant::kPlain, CuckooVariant::kSemiSorted}) {
    CuckooBuilder builder(std::nan(""), v);
    for (const auto& k : keys) builder.AddHash(KeyHash(k.data(), k.size()));
    std::string filter;
    builder.Finish(&filter);
    const auto reader = NewFilterReader(filter.data(), filter.size());
    for (const auto& k : keys) ASSERT_TRUE(reader->MayMatch(KeyHash(k.data(), k.size())));
  }
}

TEST(CuckooShapeTest, WholeNumberBudgetsGetTheirFingerprintBit) {
  // 20 bits/key: semi-sorted f = 20 (19 bits a slot) at 95% load.
  EXPECT_EQ(ChooseCuckooShape(1000000, 20, CuckooVariant::kAuto).fp_bits, 20);
  EXPECT_EQ(ChooseCuckooShape(1000000, 10, CuckooVariant::kAuto).fp_bits, 10);
}

TEST(CuckooShapeTest, AutoPicksSemiSortedWhereItBuysABit) {
  // 12 bits/key: plain fits f = 11, semi-sorted f = 12 in the same space.
  const CuckooShape s = ChooseCuckooShape(1000000, 12, CuckooVariant::kAuto);
  EXPECT_EQ(s.kind, kCuckooSemiSortedKind);
  EXPECT_EQ(s.fp_bits, 12);
  EXPECT_LT(CuckooExpectedFpr(s, 1000000),
            CuckooExpectedFpr(ChooseCuckooShape(1000000, 12, CuckooVariant::kPlain), 1000000));
}

// Distinct-fingerprint hashes whose both candidate buckets are bucket 0 of
// a table of `buckets` buckets: no more than four of them fit in the table.
std::vector<uint64_t> CollidingHashes(size_t count, const CuckooShape& shape) {
  CuckooHashing hashing(shape.fp_bits, shape.num_buckets);
  std::vector<uint64_t> out;
  uint64_t state = 3;
  while (out.size() < count) {
    const uint64_t h = test::SplitMix(&state) & 0xffffffffULL;  // bucket 0
    const CuckooAddress a = hashing.Locate(h);
    if (a.bucket != 0 || hashing.AltBucket(0, a.fp) != 0) continue;
    bool fresh = true;
    for (uint64_t o : out) fresh &= hashing.Locate(o).fp != a.fp;
    if (fresh) out.push_back(h);
  }
  return out;
}

TEST(CuckooPlacementTest, OverflowGoesToTheStash) {
  // 7 keys at 10 bits/key: two buckets of semi-sorted f = 9.
  const CuckooShape shape = ChooseCuckooShape(7, 10, CuckooVariant::kSemiSorted);
  ASSERT_EQ(shape.num_buckets, 2u);
  const auto hashes = CollidingHashes(7, shape);
  CuckooBuilder builder(10, CuckooVariant::kSemiSorted);
  for (uint64_t h : hashes) builder.AddHash(h);
  std::string filter;
  builder.Finish(&filter);
  EXPECT_EQ(static_cast<uint8_t>(filter[filter.size() - 6]), 3) << "stash entries";
  const auto reader = NewFilterReader(filter.data(), filter.size());
  for (uint64_t h : hashes) EXPECT_TRUE(reader->MayMatch(h));
}

TEST(CuckooPlacementTest, StashOverflowRebuildsALargerTable) {
  const CuckooShape shape = ChooseCuckooShape(30, 10, CuckooVariant::kPlain);
  const auto hashes = CollidingHashes(30, shape);
  CuckooBuilder builder(10, CuckooVariant::kPlain);
  for (uint64_t h : hashes) builder.AddHash(h);
  std::string filter;
  builder.Finish(&filter);
  EXPECT_GT(filter.size(), builder.FilterSize(30)) << "table grew";
  const auto reader = NewFilterReader(filter.data(), filter.size());
  for (uint64_t h : hashes) EXPECT_TRUE(reader->MayMatch(h));
}

TEST(CuckooPlacementTest, LoadsUpToTheLimitPlaceWithoutFallback) {
  // At the densest shape (95% load) a million keys place in the table,
  // not in the stash.
  const size_t n = 1000000;
  const double bpk = 15.0 / 0.95 + 0.001;  // semi-sorted f = 16, 15 bits a slot
  const CuckooShape shape = ChooseCuckooShape(n, bpk, CuckooVariant::kSemiSorted);
  ASSERT_EQ(shape.fp_bits, 16);
  ASSERT_NEAR(n / (4.0 * shape.num_buckets), 0.95, 0.001);
  CuckooBuilder builder(bpk, CuckooVariant::kSemiSorted);
  uint64_t state = 5;
  std::vector<uint64_t> hashes;
  for (size_t i = 0; i < n; ++i) hashes.push_back(test::SplitMix(&state));
  for (uint64_t h : hashes) builder.AddHash(h);
  std::string filter;
  builder.Finish(&filter);
  EXPECT_EQ(filter.size(), builder.FilterSize(n));
  const auto reader = NewFilterReader(filter.data(), filter.size());
  for (uint64_t h : hashes) ASSERT_TRUE(reader->MayMatch(h));
}

}  // namespace
}  // namespace sstfilter
