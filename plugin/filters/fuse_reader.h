// Binary fuse filter reader. In a header so that engine adapters can hold
// the concrete (final) type and skip a virtual call per query
// (fuse_kind.h picks the arity); everyone else gets it through
// NewFilterReader.

#pragma once

#include <algorithm>

#include "filters/fuse_filter.h"
#include "filters/fuse_hashing.h"
#include "format/coding.h"
#include "format/trailer.h"

namespace sstfilter {

// The parsed shape of a fuse payload: [header][fingerprint array]
// (FuseDescriptor::Parse, fuse_kind.h, checks and fills it).
struct FuseLayout {
  uint64_t seed = 0;
  uint64_t segment_count = 0;
  int segment_log = 0;
  uint64_t wide_segments = 0;  // of (f+1)-bit slots, at the front
  const char* array = nullptr;
};

template <int Arity>
class FuseReader final : public FilterReader {
 public:
  // Requires FuseDescriptor::Parse to have accepted the bytes, with
  // trailer.param_b == Arity and fp_bits == trailer.param_a.
  FuseReader(int fp_bits, const FuseLayout& layout)
      : hashing_(layout.seed, layout.segment_count, layout.segment_log, Arity),
        array_(layout.array),
        bits_(static_cast<unsigned>(fp_bits), layout.wide_segments << layout.segment_log) {}

  bool MayMatch(uint64_t hash) const override {
    const uint64_t h = hashing_.Remix(hash);
    uint64_t s[Arity];
    hashing_.Slots<Arity>(h, s);
    return Probe(h, s);
  }

  void MayMatchBatch(size_t n, const uint64_t* hashes,
                     bool* results) const override {
    constexpr size_t kChunk = 32;
    uint64_t h[kChunk];
    uint64_t s[kChunk][Arity];
    for (size_t base = 0; base < n; base += kChunk) {
      const size_t m = std::min(kChunk, n - base);
      for (size_t i = 0; i < m; ++i) {
        h[i] = hashing_.Remix(hashes[base + i]);
        hashing_.Slots<Arity>(h[i], s[i]);
        for (int j = 0; j < Arity; ++j) __builtin_prefetch(array_ + (bits_.Position(s[i][j]) >> 3));
      }
      for (size_t i = 0; i < m; ++i) results[base + i] = Probe(h[i], s[i]);
    }
  }

 private:
  // All loads issued before any is combined, so their misses overlap; the
  // fields are XORed unmasked and masked once, to the narrowest field's
  // width (the last slot's).
  SSTFILTER_ALWAYS_INLINE bool Probe(uint64_t h, const uint64_t s[Arity]) const {
    uint64_t v = FuseHashing::FingerprintWord(h);
    for (int j = 0; j < Arity; ++j) {
      const uint64_t pos = bits_.Position(s[j]);
      v ^= DecodeFixed64(array_ + (pos >> 3)) >> (pos & 7);
    }
    return (v & bits_.KeyMask(s[Arity - 1])) == 0;
  }

  FuseHashing hashing_;
  const char* array_;
  FuseSlotBits bits_;
};

}  // namespace sstfilter
