#include "filters/cuckoo_table.h"

#include <algorithm>
#include <array>

#include "format/coding.h"

namespace sstfilter {
namespace {

// ---- Semi-sorted codes ------------------------------------------------------

constexpr unsigned kCodeBits = 12;

// Codes number the sorted nibble multisets a <= b <= c <= d in
// lexicographic order; decode[code] = the four nibbles packed low to high.
// A code counts the multisets before it: those with a smaller first
// nibble, then (same a) a smaller second, then a smaller third, then a
// smaller fourth. Each count is a difference of prefix sums, which
// regroups into one small-table term per nibble:
// first[a] + second[b] + third[c] + d.
struct NibbleCodes {
  std::array<uint16_t, 1 << kCodeBits> decode{};
  std::array<uint16_t, 16> first{}, second{}, third{};
  NibbleCodes() {
    // Multisets whose remaining 1, 2 or 3 nibbles are all >= x.
    auto tails = [](int count, int x) {
      const int m = 16 - x;  // values to choose from
      return count == 1 ? m : count == 2 ? m * (m + 1) / 2 : m * (m + 1) * (m + 2) / 6;
    };
    int before_a = 0, pairs_below = 0, singles_below = 0;  // prefix sums
    for (int x = 0; x < 16; ++x) {
      // rank = before_a(a) + [pairs_below(b) - pairs_below(a)]
      //      + [singles_below(c) - singles_below(b)] + (d - c)
      first[x] = static_cast<uint16_t>(before_a - pairs_below);
      second[x] = static_cast<uint16_t>(pairs_below - singles_below);
      third[x] = static_cast<uint16_t>(singles_below - x);
      before_a += tails(3, x);
      pairs_below += tails(2, x);
      singles_below += tails(1, x);
    }
    int code = 0;
    for (unsigned a = 0; a < 16; ++a)
      for (unsigned b = a; b < 16; ++b)
        for (unsigned c = b; c < 16; ++c)
          for (unsigned d = c; d < 16; ++d) {
            decode[code++] = static_cast<uint16_t>(a | (b << 4) | (c << 8) | (d << 12));
          }
    // Codes 3876..4095 are never written; they decode to all-empty.
  }
  unsigned Rank(unsigned a, unsigned b, unsigned c, unsigned d) const {
    return static_cast<uint16_t>(first[a] + second[b] + third[c] + d);
  }
};

const NibbleCodes& Codes() {
  static const NibbleCodes codes;
  return codes;
}

// Is there a slot j whose nibble (4-bit lane j of `nibbles`) is `low` and
// whose high part (lane j of `highs`, `width` bits) is `high`?
inline bool AnyLaneEqualsBoth(unsigned nibbles, unsigned low, uint64_t highs,
                              unsigned width, uint64_t mask, uint64_t high) {
  bool found = false;
  for (unsigned j = 0; j < kSlotsPerBucket; ++j) {
    found |= (((nibbles >> (4 * j)) & 15) == low) &
             (((highs >> (j * width)) & mask) == high);
  }
  return found;
}

}  // namespace

// ---- The layout -----------------------------------------------------------

BucketLayout::BucketLayout(int fp_bits, bool semi_sorted)
    : fp_bits_(static_cast<unsigned>(fp_bits)),
      semi_sorted_(semi_sorted),
      bucket_bits_(semi_sorted ? kCodeBits + kSlotsPerBucket * (fp_bits_ - 4)
                               : kSlotsPerBucket * fp_bits_) {}

void BucketLayout::Encode(const uint32_t slots[kSlotsPerBucket],
                          BitWriter* out) const {
  if (!semi_sorted_) {
    for (int j = 0; j < kSlotsPerBucket; ++j) out->Put(slots[j], fp_bits_);
    return;
  }
  const unsigned h = fp_bits_ - 4;  // high part of each slot
  // Sort by (low nibble, high part): rotating the nibble to the top makes
  // that plain integer order. A 5-comparator network sorts four values.
  uint32_t s[kSlotsPerBucket];
  for (int j = 0; j < kSlotsPerBucket; ++j) s[j] = (slots[j] << 28) | (slots[j] >> 4);
  // Branch-free compare-exchange: slot contents are random, so a branch
  // would mispredict half the time.
  auto order = [&s](int a, int b) {
    const uint32_t flip = (s[a] ^ s[b]) & (0u - static_cast<uint32_t>(s[b] < s[a]));
    s[a] ^= flip;
    s[b] ^= flip;
  };
  order(0, 1), order(2, 3), order(0, 2), order(1, 3), order(1, 2);
  const unsigned code = Codes().Rank(s[0] >> 28, s[1] >> 28, s[2] >> 28, s[3] >> 28);
  if (bucket_bits_ <= 64) {
    uint64_t word = code;
    for (int j = 0; j < kSlotsPerBucket; ++j) {
      word |= static_cast<uint64_t>(s[j] & 0x0fffffff) << (kCodeBits + j * h);
    }
    out->Put(word, bucket_bits_);
    return;
  }
  out->Put(code, kCodeBits);
  for (int j = 0; j < kSlotsPerBucket; ++j) out->Put(s[j] & 0x0fffffff, h);
}

void BucketLayout::Decode(const char* base, uint64_t bucket,
                          uint32_t slots[kSlotsPerBucket]) const {
  const uint64_t pos = BucketStart(bucket);
  if (!semi_sorted_) {
    for (int j = 0; j < kSlotsPerBucket; ++j) {
      slots[j] = static_cast<uint32_t>(LoadBits(base, pos + j * fp_bits_, fp_bits_));
    }
    return;
  }
  const unsigned h = fp_bits_ - 4;
  const unsigned nibbles = Codes().decode[LoadBits(base, pos, kCodeBits)];
  for (int j = 0; j < kSlotsPerBucket; ++j) {
    const uint64_t high = h == 0 ? 0 : LoadBits(base, pos + kCodeBits + j * h, h);
    slots[j] = static_cast<uint32_t>((high << 4) | ((nibbles >> (4 * j)) & 15));
  }
}

// ---- The codecs -----------------------------------------------------------

PlainBucketCodec::PlainBucketCodec(int fp_bits)
    : BucketLayout(fp_bits, /*semi_sorted=*/false),
      lanes_(static_cast<unsigned>(fp_bits)) {}

SemiSortedBucketCodec::SemiSortedBucketCodec(int fp_bits)
    : BucketLayout(fp_bits, /*semi_sorted=*/true),
      high_bits_(fp_bits_ - 4),
      high_mask_((uint64_t{1} << high_bits_) - 1),
      decode_(Codes().decode.data()) {}

const uint16_t* SemiSortedDecodeTable() { return Codes().decode.data(); }

bool SemiSortedBucketCodec::SlotsContain(unsigned nibbles, uint64_t highs,
                                         uint32_t fp) const {
  return AnyLaneEqualsBoth(nibbles, fp & 15, highs, high_bits_, high_mask_, fp >> 4);
}

}  // namespace sstfilter
