// Bucket codecs: how a cuckoo filter's buckets of four fingerprints are
// packed into bits. They own no memory; the cuckoo filter logic (hashing,
// alternate bucket, eviction, stash) in cuckoo_filter.h works on either.
//
// A fingerprint is an integer in [1, 2^f - 1]; 0 marks an empty slot.
// Bucket b occupies bits [b * bucket_bits(), (b + 1) * bucket_bits()) of a
// little-endian bit array (see LoadBits in coding.h). Bucket widths (4f, or
// 4f - 4) are multiples of 4 bits, so a bucket of up to 64 bits starts at
// bit 0 or 4 of a byte and one 8-byte load reads it. Readers and writers
// touch up to 8 bytes past a bucket's first byte, so the array must be
// followed by at least 8 addressable bytes (the trailer guarantees this).

#pragma once

#include <cstdint>

#include "format/coding.h"

namespace sstfilter {

constexpr int kSlotsPerBucket = 4;
constexpr int kMinFingerprintBits = 4;
constexpr int kMaxFingerprintBits = 32;

// Constants for testing four `width`-bit lanes of a word at once (SWAR).
struct LaneConstants {
  uint64_t ones = 0;  // 1 in the lowest bit of each lane
  uint64_t low = 0;   // all but each lane's top bit
  uint64_t top = 0;   // each lane's top bit
  // `lanes` lanes of `width` bits. Requires 1 <= width; lanes that do not
  // fit a word together (four wider than 16 bits) leave the constants zero:
  // callers do not use them then.
  constexpr explicit LaneConstants(unsigned width, unsigned lanes = 4) {
    if (width == 0 || width * lanes > 64) return;
    for (unsigned j = 0; j < lanes; ++j) {
      ones |= uint64_t{1} << (j * width);
      top |= uint64_t{1} << (j * width + width - 1);
    }
    low = ones * ((uint64_t{1} << (width - 1)) - 1);
  }
  // Each lane's top bit set iff that lane of `x` is zero; no carries cross
  // lanes ((v & low) + low stays below 2^width).
  uint64_t ZeroLanes(uint64_t x) const { return ~(((x & low) + low) | x) & top; }
};

// Multiplier that moves the flag at bit w * j + w - 1 of four w-bit lanes
// to bit 4w - 1 + j after a shift right by w - 1 (so bits 3w + j).
constexpr uint64_t LaneGather(unsigned w) {
  return w > 16 ? 0
                : (uint64_t{1} << (3 * w)) + (uint64_t{1} << (2 * w + 1)) +
                      (uint64_t{1} << (w + 2)) + (uint64_t{1} << 3);
}

// The semi-sorted codes' decode table (cuckoo_table.cc): 4096 entries,
// code -> four sorted nibbles (see SemiSortedBucketCodec).
const uint16_t* SemiSortedDecodeTable();

// A bucket's bits: its width, how a build writes it and how it reads back
// whole. Both layouts share this one class because these are cold paths
// (a build writes each bucket once; Decode serves tests), so a branch on
// the layout costs nothing there. The per-query matches, which must stay
// inline and branch-free, live in the codecs below, one per layout.
// A plain base, not an interface: callers hold a codec by its concrete
// type, so every call stays inline.
class BucketLayout {
 public:
  unsigned bucket_bits() const { return bucket_bits_; }
  // For buckets of up to 64 bits: the bucket as one word, so a query can
  // issue both buckets' loads before it matches either (WordContains).
  bool word_sized() const { return bucket_bits_ <= 64; }
  uint64_t LoadWord(const char* base, uint64_t bucket) const {
    return LoadBits(base, BucketStart(bucket), bucket_bits_);  // one load
  }

  // Appends the next bucket; buckets are written in order from bucket 0.
  // Semi-sorted buckets are written with their slots sorted (by low
  // nibble, then high bits), so equal contents give equal bits whatever
  // their order.
  void Encode(const uint32_t slots[kSlotsPerBucket], BitWriter* out) const;
  // Bucket `bucket`'s four slots: as written for plain buckets, in that
  // sorted order for semi-sorted ones.
  void Decode(const char* base, uint64_t bucket,
              uint32_t slots[kSlotsPerBucket]) const;

 protected:
  BucketLayout(int fp_bits, bool semi_sorted);
  uint64_t BucketStart(uint64_t bucket) const { return bucket * bucket_bits_; }

  unsigned fp_bits_;
  bool semi_sorted_;
  unsigned bucket_bits_;  // 4f plain, 4f - 4 semi-sorted
};

// Four f-bit fingerprints side by side: 4f bits per bucket.
class PlainBucketCodec : public BucketLayout {
 public:
  explicit PlainBucketCodec(int fp_bits);

  // The match on a word from LoadWord (f <= 16).
  bool WordContains(uint64_t word, uint32_t fp) const {
    return lanes_.ZeroLanes(word ^ (fp * lanes_.ones)) != 0;
  }
  // The match for buckets wider than a word (f > 16; also right for any
  // width), inline and without a branch on the data: a query's loads for
  // both buckets issue before either is compared, and a loop of queries
  // overlaps their cache misses (out of line, with a branch per slot, a
  // query out of cache cost about one miss's latency more than one that
  // fits a word).
  // Up to 28 bits two lanes share a load (2f <= 56 bits always fits
  // LoadBits); wider, a load a slot.
  SSTFILTER_ALWAYS_INLINE bool WideContains(const char* base, uint64_t bucket,
                                            uint32_t fp) const {
    const uint64_t pos = BucketStart(bucket);
    const unsigned f = fp_bits_;
    if (f <= 28) {
      const uint64_t mask = (uint64_t{1} << f) - 1, pair = fp | (uint64_t{fp} << f);
      const uint64_t a = LoadBits(base, pos, 2 * f) ^ pair;
      const uint64_t b = LoadBits(base, pos + 2 * f, 2 * f) ^ pair;
      return ((a & mask) == 0) | ((a >> f) == 0) | ((b & mask) == 0) | ((b >> f) == 0);
    }
    bool found = false;
    for (unsigned j = 0; j < kSlotsPerBucket; ++j) {
      found |= LoadBits(base, pos + j * f, f) == fp;
    }
    return found;
  }

 private:
  LaneConstants lanes_;  // four fp_bits_-wide lanes
};

// Semi-sorted buckets (Fan et al., section 5.2): the four fingerprints are
// sorted by their low 4 bits. A sorted multiset of four 4-bit values has
// C(19, 4) = 3876 possibilities, so a 12-bit code replaces the 16 bits of
// the four nibbles: 4f - 4 bits per bucket, one bit per entry saved.
//
//   bits [0, 12)                       nibble code (rank of the sorted
//                                      nibble multiset)
//   bits [12 + j(f-4), 12 + (j+1)(f-4)) high f-4 bits of slot j, j = 0..3
class SemiSortedBucketCodec : public BucketLayout {
 public:
  explicit SemiSortedBucketCodec(int fp_bits);

  // The match on a word from LoadWord (f <= 17). Readers take
  // FixedSemiSortedCodec for f = 8..24 (cuckoo_kind.h), so this match,
  // slot by slot, serves f = 4..7, whose high parts are too narrow for the
  // lane trick.
  bool WordContains(uint64_t word, uint32_t fp) const {
    return SlotsContain(decode_[word & 0xfff], word >> 12, fp);
  }
  // As PlainBucketCodec::WideContains, for buckets wider than a word
  // (f >= 18, so high parts of 14 bits or more, two to a load up to
  // f = 32): slot j matches when its high part and nibble j of the code's
  // four are the query's. Readers take FixedSemiSortedCodec for
  // f = 18..24, so this match serves f = 25..32, and the tests.
  SSTFILTER_ALWAYS_INLINE bool WideContains(const char* base, uint64_t bucket,
                                            uint32_t fp) const {
    const uint64_t pos = BucketStart(bucket);
    const unsigned h = high_bits_;
    const unsigned nib = decode_[LoadBits(base, pos, 12)] ^ ((fp & 15) * 0x1111u);
    if (h <= 28) {
      const uint64_t high = fp >> 4, pair = high | (high << h);
      const uint64_t a = LoadBits(base, pos + 12, 2 * h) ^ pair;
      const uint64_t b = LoadBits(base, pos + 12 + 2 * h, 2 * h) ^ pair;
      return (((a & high_mask_) == 0) & ((nib & 0xf) == 0)) |
             (((a >> h) == 0) & ((nib & 0xf0) == 0)) |
             (((b & high_mask_) == 0) & ((nib & 0xf00) == 0)) |
             (((b >> h) == 0) & ((nib & 0xf000) == 0));
    }
    bool found = false;
    for (unsigned j = 0; j < kSlotsPerBucket; ++j) {
      const uint64_t high_j = LoadBits(base, pos + 12 + j * h, h);
      found |= (high_j == (fp >> 4)) & (((nib >> (4 * j)) & 15) == 0);
    }
    return found;
  }

 private:
  bool SlotsContain(unsigned nibbles, uint64_t highs, uint32_t fp) const;

  unsigned high_bits_;  // f - 4
  uint64_t high_mask_;
  const uint16_t* decode_;  // SemiSortedDecodeTable(): code -> nibbles
};

// The nibble half of a semi-sorted match: bit j set iff slot j's low
// nibble is fp's, from the four sorted nibbles a code decodes to (lane
// flags at bits 4j + 3, gathered to bits 0..3 by one multiply; 0x249 =
// 2^9 + 2^6 + 2^3 + 1).
SSTFILTER_ALWAYS_INLINE unsigned NibbleMatches(unsigned nibbles, uint32_t fp) {
  const uint64_t x = nibbles ^ ((fp & 15) * 0x1111u);
  const uint64_t nz = ~(((x & 0x7777) + 0x7777) | x) & 0x8888;
  return static_cast<unsigned>(((((nz >> 3) & 0x1111) * 0x249) >> 9) & 15);
}

// A query-only semi-sorted codec for one fingerprint width F fixed at
// compile time: the same bits and answers as SemiSortedBucketCodec for that
// width, with every shift, mask and lane constant folded into the code.
// Readers use it for f = 8..24 (cuckoo_kind.h): budgets of about 9-25
// bits/key, the widths whose high parts (f - 4 bits) are wide enough for
// lane matches. (Plain buckets keep the run-time codec: a fixed one was no
// faster out of cache; docs/design/cuckoo.md.)
//
// For absent keys a high part matches with probability about 4 / 2^(f-4),
// so both matches compare the high parts first and look the nibble code up
// only where one matches: the table lookup (a dependent load, often out of
// L1 when queries roam over memory) usually does not happen, and the
// branch before it is predictable for the same reason. (The run-time
// codec's wide match reads the table for every bucket and shifts by
// run-time widths; docs/design/cuckoo.md.)
template <int F>
class FixedSemiSortedCodec {
  static_assert(F >= 8 && F <= 24, "high parts of 4 to 20 bits");

 public:
  explicit FixedSemiSortedCodec(int /*fp_bits*/) : decode_(SemiSortedDecodeTable()) {}
  static constexpr unsigned bucket_bits() { return 12 + 4 * (F - 4); }
  // f = 8..17: buckets of 28-64 bits, matched on one word.
  static constexpr bool word_sized() { return bucket_bits() <= 64; }

  // The bucket in the low bits; the bits above it (the next bucket's) are
  // left in: WordContains reads the code and four lanes and nothing else.
  uint64_t LoadWord(const char* base, uint64_t bucket) const {
    const uint64_t pos = bucket * bucket_bits();
    return DecodeFixed64(base + (pos >> 3)) >> (pos & 7);  // see LoadBits
  }
  // Is fp in the bucket word (word-sized buckets only)? Bits of `word`
  // above the bucket are ignored.
  bool WordContains(uint64_t word, uint32_t fp) const {
    if constexpr (!word_sized()) {
      return true;  // never asked: readers ask WideContains
    } else {
      const uint64_t hz = kHighLanes.ZeroLanes((word >> 12) ^ ((fp >> 4) * kHighLanes.ones));
      if (__builtin_expect(hz == 0, 1)) return false;
      // Slots whose high part is fp's: lane flags at bits (j+1)w - 1,
      // gathered to bits 0..3 by one multiply.
      const uint64_t high_match =
          (((hz >> (kHighBits - 1)) * LaneGather(kHighBits)) >> (3 * kHighBits)) & 15;
      return (NibbleMatches(decode_[word & 0xfff], fp) & high_match) != 0;
    }
  }
  // Any bucket; f = 18..24 (buckets of 68-92 bits) match their high parts
  // two lanes to a load (2(F-4) <= 40 bits, which a load at any bit offset
  // holds).
  SSTFILTER_ALWAYS_INLINE bool WideContains(const char* base, uint64_t bucket,
                                            uint32_t fp) const {
    if constexpr (word_sized()) {
      return WordContains(LoadWord(base, bucket), fp);
    } else {
      const uint64_t pos = bucket * bucket_bits();
      const uint64_t high = (fp >> 4) * kPair.ones;
      const uint64_t a = kPair.ZeroLanes(LoadBits(base, pos + 12, 2 * kHighBits) ^ high);
      const uint64_t b =
          kPair.ZeroLanes(LoadBits(base, pos + 12 + 2 * kHighBits, 2 * kHighBits) ^ high);
      if (__builtin_expect((a | b) == 0, 1)) return false;
      // Lane flags at bits h - 1 and 2h - 1 of each pair: slots 0, 1 in a,
      // 2, 3 in b.
      const unsigned high_match = static_cast<unsigned>(
          ((a >> (kHighBits - 1)) & 1) | ((a >> (2 * kHighBits - 2)) & 2) |
          ((b >> (kHighBits - 3)) & 4) | ((b >> (2 * kHighBits - 4)) & 8));
      return (NibbleMatches(decode_[LoadBits(base, pos, 12)], fp) & high_match) != 0;
    }
  }

 private:
  static constexpr unsigned kHighBits = F - 4;
  static constexpr LaneConstants kHighLanes{kHighBits};  // used when word-sized
  static constexpr LaneConstants kPair{kHighBits, 2};
  const uint16_t* decode_;  // code -> four sorted nibbles
};

}  // namespace sstfilter
