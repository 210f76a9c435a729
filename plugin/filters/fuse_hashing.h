// Where a hash lives in a binary fuse filter; shared by the builder and the
// reader, so both sides compute it in exactly one way (docs/format.md).
//
// The slot array is `segment_count + arity - 1` segments of 2^segment_log
// slots. A key hash x is first remixed with the filter's seed,
//   h = x                      if seed == 0 (the first attempt)
//   h = Mix64(x + seed)        otherwise (a retry after a failed peeling),
// a bijection of x either way, so distinct keys stay distinct. Then
//   base     = FastRange64(h, segment_count << segment_log)
//   slot_0   = base
//   slot_i   = (base + i * 2^segment_log) XOR offset_i,  i = 1 .. arity-1
//   offset_1 = (h >> 18) mod 2^segment_log
//   offset_2 =  h        mod 2^segment_log
//   offset_3 = ((h * 0x9e3779b97f4a7c15) >> 46) mod 2^segment_log  (4-wise)
//   fp       = (h XOR (h >> 32)) mod 2^f
// so slot i lies in segment (base's segment) + i, at a position within it
// that the XOR scrambles. FastRange64 uses the high bits of h and the
// offsets its low 36 (or, for offset_3, a product that depends on all of
// them), so they are close to independent.
//
// Slot widths: the first `wide` segments (header bytes 13..15; 0 in the
// first layout) hold f+1 bits per slot, the rest f. With B = wide * 2^log,
// slot s starts at bit s*f + min(s, B) of the array and is f + (s < B)
// bits wide; a key is checked on the width of its last (highest) slot,
// the narrowest of its slots.

#pragma once

#include <cstdint>

#include "format/coding.h"
#include "format/hash.h"

namespace sstfilter {

constexpr int kMaxFuseSegmentLog = 18;

// Inverse of Mix64, for the builder to recover a key hash from its remixed
// value when it retries with another seed.
uint64_t UnMix64(uint64_t x);

class FuseHashing {
 public:
  // Requires arity 3 or 4, segment_count >= 1, segment_log <= 18.
  FuseHashing(uint64_t seed, uint64_t segment_count, int segment_log, int arity)
      : seed_(seed),
        segment_length_(uint64_t{1} << segment_log),
        segment_mask_(segment_length_ - 1),
        base_range_(segment_count << segment_log),
        arity_(arity) {}

  SSTFILTER_ALWAYS_INLINE uint64_t Remix(uint64_t key_hash) const {
    // The first attempt almost always succeeds: no mixing on its queries.
    if (__builtin_expect(seed_ == 0, 1)) return key_hash;
    return Mix64(key_hash + seed_);
  }

  // The key hash Remix was given.
  uint64_t Unremix(uint64_t h) const { return seed_ == 0 ? h : UnMix64(h) - seed_; }

  // The `Arity` slots of remixed hash h, in segment order.
  template <int Arity>
  SSTFILTER_ALWAYS_INLINE void Slots(uint64_t h, uint64_t slots[Arity]) const {
    const uint64_t base = FastRange64(h, base_range_);
    slots[0] = base;
    slots[1] = (base + segment_length_) ^ ((h >> 18) & segment_mask_);
    slots[2] = (base + 2 * segment_length_) ^ (h & segment_mask_);
    if (Arity == 4) {
      slots[Arity - 1] = (base + 3 * segment_length_) ^
                         (((h * 0x9e3779b97f4a7c15ULL) >> 46) & segment_mask_);
    }
  }

  // The full fingerprint word; callers keep its low f bits.
  static SSTFILTER_ALWAYS_INLINE uint64_t FingerprintWord(uint64_t h) { return h ^ (h >> 32); }

  uint64_t seed() const { return seed_; }
  int arity() const { return arity_; }

 private:
  uint64_t seed_;
  uint64_t segment_length_;
  uint64_t segment_mask_;
  uint64_t base_range_;  // segment_count * segment_length
  int arity_;
};

// Where the slots of a fingerprint array of f-bit slots after `wide_slots`
// (f+1)-bit ones lie. Shared by builder and reader.
class FuseSlotBits {
 public:
  // Requires 1 <= f, and f <= 31 if wide_slots > 0.
  FuseSlotBits(unsigned f, uint64_t wide_slots)
      : f_(f),
        wide_end_(wide_slots),
        narrow_mask_((uint64_t{1} << f) - 1),
        wide_mask_((uint64_t{2} << f) - 1) {}

  SSTFILTER_ALWAYS_INLINE uint64_t Position(uint64_t slot) const {
    return slot * f_ + (slot < wide_end_ ? slot : wide_end_);
  }
  SSTFILTER_ALWAYS_INLINE unsigned Width(uint64_t slot) const {
    return f_ + (slot < wide_end_ ? 1 : 0);
  }
  // The mask of a slot's field, Width(slot) bits.
  SSTFILTER_ALWAYS_INLINE uint64_t SlotMask(uint64_t slot) const {
    return slot < wide_end_ ? wide_mask_ : narrow_mask_;
  }
  // The mask of a key's checked bits, given its last (highest) slot.
  SSTFILTER_ALWAYS_INLINE uint64_t KeyMask(uint64_t last_slot) const { return SlotMask(last_slot); }

 private:
  uint64_t f_;
  uint64_t wide_end_;
  uint64_t narrow_mask_;
  uint64_t wide_mask_;
};

}  // namespace sstfilter
