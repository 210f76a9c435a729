#include "cuckoo_table.h"

#include <algorithm>
#include <array>

#include "coding.h"

namespace sstfilter {

// ---- Plain ----------------------------------------------------------------

PlainBucketCodec::PlainBucketCodec(int fp_bits)
    : fp_bits_(static_cast<unsigned>(fp_bits)),
      bucket_bits_(kSlotsPerBucket * static_cast<unsigned>(fp_bits)),
      fp_mask_((uint64_t{1} << fp_bits) - 1),
      lanes_(static_cast<unsigned>(fp_bits)) {}

void PlainBucketCodec::Encode(const uint32_t slots[kSlotsPerBucket],
                              BitWriter* out) const {
  for (int j = 0; j < kSlotsPerBucket; ++j) out->Put(slots[j], fp_bits_);
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
  if (word_sized()) return WordContains(LoadWord(base, bucket), fp);
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
      high_lanes_(high_bits_ >= 4 ? high_bits_ : 4),
      // Only used when the bucket fits a word (high_bits_ <= 13).
      gather_(high_bits_ > 16 ? 0
                              : (uint64_t{1} << (3 * high_bits_)) +
                                    (uint64_t{1} << (2 * high_bits_ + 1)) +
                                    (uint64_t{1} << (high_bits_ + 2)) + (uint64_t{1} << 3)),
      decode_(Codes().decode.data()),
      encode_(Codes().encode.data()) {}

void SemiSortedBucketCodec::Encode(const uint32_t slots[kSlotsPerBucket],
                                   BitWriter* out) const {
  // Sort by (low nibble, high part): rotating the nibble to the top makes
  // that plain integer order. A 5-comparator network sorts four values.
  uint32_t s[kSlotsPerBucket];
  for (int j = 0; j < kSlotsPerBucket; ++j) s[j] = (slots[j] << 28) | (slots[j] >> 4);
  auto order = [&s](int a, int b) {
    if (s[a] > s[b]) std::swap(s[a], s[b]);
  };
  order(0, 1), order(2, 3), order(0, 2), order(1, 3), order(1, 2);
  unsigned packed = 0;
  for (int j = 0; j < kSlotsPerBucket; ++j) packed |= (s[j] >> 28) << (4 * j);
  out->Put(encode_[packed], kCodeBits);
  for (int j = 0; j < kSlotsPerBucket; ++j) out->Put(s[j] & 0x0fffffff, high_bits_);
}

bool SemiSortedBucketCodec::SlowWordContains(unsigned nibbles, uint64_t highs,
                                             uint32_t fp) const {
  return AnyLaneEqualsBoth(nibbles, fp & 15, highs, high_bits_, high_mask_, fp >> 4);
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
  if (word_sized()) return WordContains(LoadWord(base, bucket), fp);
  uint32_t slots[kSlotsPerBucket];
  Decode(base, bucket, slots);
  bool found = false;
  for (int j = 0; j < kSlotsPerBucket; ++j) found |= slots[j] == fp;
  return found;
}

}  // namespace sstfilter
