// Where a hash lives in a bumped ribbon filter; shared by the builder and
// the reader, so both sides compute it in exactly one way (docs/format.md).
//
// Layer 0 sees the key hash x remixed with the filter's seed,
//   h_0 = x                    if seed == 0 (the first attempt)
//   h_0 = Mix64(x + seed)      otherwise (a retry),
// and layer l + 1 sees h_{l+1} = Mix64(h_l + kBurrLayerStep), a bijection
// each time, so distinct keys stay distinct in every layer. Of a layer's
// value h, over a layer of `slots` slots (a multiple of 64):
//   start = FastRange64(h, slots - 63)           the row's first slot
//   row   = (h * kBurrRowMultiplier) | 1          64 bits from `start` on
//   fp    = ((h ^ (h >> 32)) * kBurrFpMultiplier) >> 32   32 bits
// FastRange64 is monotone in h, so keys sorted by h are sorted by start;
// the row and fingerprint depend on all of h's bits through the products.
// Bucket = start >> kBurrBucketLog, offset = start & (kBurrBucketSize - 1).

#pragma once

#include <cstdint>

#include "format/coding.h"
#include "format/hash.h"

namespace sstfilter {

// Ribbon width: a row covers 64 consecutive slots, one machine word.
constexpr int kBurrRibbonWidth = 64;
// Starts per bucket; each bucket has a 2-bit threshold code. 128 starts
// with thresholds 16 and 40 leave the least space over the bound of the
// sizes tools/research/burr_sizing tried (64 to 256 starts, thresholds 8
// to 112): the codes cost 2 / (128 r) bits per key.
constexpr int kBurrBucketLog = 7;
constexpr uint32_t kBurrBucketSize = uint32_t{1} << kBurrBucketLog;

constexpr uint64_t kBurrLayerStep = 0x6a09e667f3bcc909ULL;
constexpr uint64_t kBurrRowMultiplier = 0x9e3779b97f4a7c15ULL;
constexpr uint64_t kBurrFpMultiplier = 0xbf58476d1ce4e5b9ULL;

// The threshold each 2-bit code stands for: keys whose offset in their
// bucket is below it were bumped to the next layer. Code 3 bumps the whole
// bucket, so a bucket can always be settled.
SSTFILTER_ALWAYS_INLINE uint32_t BurrThreshold(unsigned code) {
  // Packed table: 0, 16, 40, 128 (one byte each).
  return (0x80281000u >> (8 * code)) & 0xFF;
}

// The seed of build attempt `attempt` (0 for the first; the header keeps
// the attempt).
constexpr uint64_t BurrSeedOfAttempt(int attempt) {
  return static_cast<uint64_t>(attempt) * 0xd1b54a32d192ed03ULL;
}

struct BurrHashing {
  SSTFILTER_ALWAYS_INLINE static uint64_t FirstLayer(uint64_t key_hash, uint64_t seed) {
    if (__builtin_expect(seed == 0, 1)) return key_hash;
    return Mix64(key_hash + seed);
  }
  SSTFILTER_ALWAYS_INLINE static uint64_t NextLayer(uint64_t h) {
    return Mix64(h + kBurrLayerStep);
  }
  // Requires slots >= 64.
  SSTFILTER_ALWAYS_INLINE static uint64_t Start(uint64_t h, uint64_t slots) {
    return FastRange64(h, slots - (kBurrRibbonWidth - 1));
  }
  SSTFILTER_ALWAYS_INLINE static uint64_t Row(uint64_t h) { return (h * kBurrRowMultiplier) | 1; }
  SSTFILTER_ALWAYS_INLINE static uint32_t Fingerprint(uint64_t h) {
    return static_cast<uint32_t>(((h ^ (h >> 32)) * kBurrFpMultiplier) >> 32);
  }
};

}  // namespace sstfilter
