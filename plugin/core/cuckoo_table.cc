#include "cuckoo_table.h"

#include <algorithm>
#include <array>

#include "coding.h"

namespace sstfilter {

// ---- Plain ----------------------------------------------------------------

PlainBucketCodec::PlainBucketCodec(int fp_bits)
    : fp_bits_(static_cast<unsigned>(fp_bits)),
      bucket_bits_(kSlotsPerBucket * static_cast<unsigned>(fp_bits)),
      fp_mask_((uint64_t{1} << fp_bits) - 1) {}

void PlainBucketCodec::Encode(const uint32_t slots[kSlotsPerBucket],
                              char* base, uint64_t bucket) const {
  const uint64_t pos = bucket * bucket_bits_;
  for (int j = 0; j < kSlotsPerBucket; ++j) {
    StoreBits(base, pos + j * fp_bits_, fp_bits_, slots[j]);
  }
}

void PlainBucketCodec::Decode(const char* base, uint64_t bucket,
                              uint32_t slots[kSlotsPerBucket]) const {
  const uint64_t pos = bucket * bucket_bits_;
  for (int j = 0; j < kSlotsPerBucket; ++j) {
    slots[j] = static_cast<uint32_t>(LoadBits(base, pos + j * fp_bits_, fp_bits_));
  }
}

bool PlainBucketCodec::Contains(const char* base, uint64_t bucket,
                                uint32_t fp) const {
  const uint64_t pos = bucket * bucket_bits_;
  if (bucket_bits_ <= 64) {  // the whole bucket in one word
    return AnyLaneEquals(LoadBitsWide(base, pos, bucket_bits_), fp_bits_, fp_mask_, fp);
  }
  for (unsigned j = 0; j < kSlotsPerBucket; ++j) {
    if (LoadBits(base, pos + j * fp_bits_, fp_bits_) == fp) return true;
  }
  return false;
}

// ---- Semi-sorted ------------------------------------------------------------

namespace {

constexpr unsigned kCodeBits = 12;

// decode[code] = the four sorted nibbles packed low to high;
// encode[packed sorted nibbles] = code.
struct NibbleCodes {
  std::array<uint16_t, 1 << kCodeBits> decode{};
  std::array<uint16_t, 1 << 16> encode{};
  NibbleCodes() {
    int code = 0;
    for (unsigned a = 0; a < 16; ++a)
      for (unsigned b = a; b < 16; ++b)
        for (unsigned c = b; c < 16; ++c)
          for (unsigned d = c; d < 16; ++d) {
            const auto packed =
                static_cast<uint16_t>(a | (b << 4) | (c << 8) | (d << 12));
            decode[code] = packed;
            encode[packed] = static_cast<uint16_t>(code);
            ++code;
          }
    // Codes 3876..4095 are never written; they decode to all-empty.
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

SemiSortedBucketCodec::SemiSortedBucketCodec(int fp_bits)
    : high_bits_(static_cast<unsigned>(fp_bits) - 4),
      bucket_bits_(kCodeBits + kSlotsPerBucket * high_bits_),
      high_mask_((uint64_t{1} << high_bits_) - 1),
      decode_(Codes().decode.data()) {}

void SemiSortedBucketCodec::Encode(const uint32_t slots[kSlotsPerBucket],
                                   char* base, uint64_t bucket) const {
  std::array<uint32_t, kSlotsPerBucket> s;
  std::copy(slots, slots + kSlotsPerBucket, s.begin());
  std::sort(s.begin(), s.end(), [](uint32_t x, uint32_t y) {
    return (x & 15) != (y & 15) ? (x & 15) < (y & 15) : (x >> 4) < (y >> 4);
  });
  unsigned packed = 0;
  for (int j = 0; j < kSlotsPerBucket; ++j) packed |= (s[j] & 15) << (4 * j);
  const uint64_t pos = bucket * bucket_bits_;
  StoreBits(base, pos, kCodeBits, Codes().encode[packed]);
  if (high_bits_ == 0) return;
  for (int j = 0; j < kSlotsPerBucket; ++j) {
    StoreBits(base, pos + kCodeBits + j * high_bits_, high_bits_, s[j] >> 4);
  }
}

void SemiSortedBucketCodec::Decode(const char* base, uint64_t bucket,
                                   uint32_t slots[kSlotsPerBucket]) const {
  const uint64_t pos = bucket * bucket_bits_;
  const unsigned nibbles = Codes().decode[LoadBits(base, pos, kCodeBits)];
  for (int j = 0; j < kSlotsPerBucket; ++j) {
    const uint64_t high =
        high_bits_ == 0
            ? 0
            : LoadBits(base, pos + kCodeBits + j * high_bits_, high_bits_);
    slots[j] = static_cast<uint32_t>((high << 4) | ((nibbles >> (4 * j)) & 15));
  }
}

bool SemiSortedBucketCodec::Contains(const char* base, uint64_t bucket,
                                     uint32_t fp) const {
  if (bucket_bits_ <= 64) {  // f <= 17: the whole bucket in one word
    const uint64_t word = LoadBitsWide(base, bucket * bucket_bits_, bucket_bits_);
    const unsigned nibbles = decode_[word & ((1u << kCodeBits) - 1)];
    // A slot matches if both its nibble and its high part do; build a mask
    // of nibble matches, then test the high parts of those slots.
    return AnyLaneEqualsBoth(nibbles, fp & 15, word >> kCodeBits, high_bits_,
                             high_mask_, fp >> 4);
  }
  uint32_t slots[kSlotsPerBucket];
  Decode(base, bucket, slots);
  bool found = false;
  for (int j = 0; j < kSlotsPerBucket; ++j) found |= slots[j] == fp;
  return found;
}

}  // namespace sstfilter
