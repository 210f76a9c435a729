// Bumped ribbon filter reader. In a header so that engine adapters can
// hold the concrete (final) type and skip a virtual call per query
// (reader_dispatch.h); everyone else gets it through NewFilterReader.

#pragma once

#include <algorithm>
#include <cstdint>

#include "filters/burr_filter.h"
#include "filters/burr_hashing.h"
#include "filters/filter.h"
#include "format/bits.h"
#include "format/coding.h"
#include "format/trailer.h"

namespace sstfilter {

// Trailer kind byte of a bumped ribbon filter (docs/format.md).
constexpr FilterKind kBurrKind{6};

// Solution columns of block `block` in a layer whose first `narrow_blocks`
// blocks have `columns` and the rest columns + 1.
SSTFILTER_ALWAYS_INLINE int BurrColumnsOfBlock(uint64_t block, uint64_t narrow_blocks, int columns) {
  return columns + (block >= narrow_blocks ? 1 : 0);
}

// Index of block `block`'s first solution word in its layer (blocks are
// stored in order, each as its columns' words).
SSTFILTER_ALWAYS_INLINE uint64_t BurrFirstWordOfBlock(uint64_t block, uint64_t narrow_blocks,
                                                      int columns) {
  return block * static_cast<uint64_t>(columns) + (block > narrow_blocks ? block - narrow_blocks : 0);
}

struct BurrLayerView {
  uint64_t starts = 0;         // slots - 63
  uint64_t narrow_blocks = 0;  // blocks with `columns` columns, at the front
  const uint8_t* codes = nullptr;
  const char* words = nullptr;
};

// The parsed shape of a bumped ribbon payload (BurrDescriptor::Parse,
// burr_kind.h, checks and fills it).
struct BurrLayout {
  uint64_t seed = 0;
  int columns = 0;
  int layers = 0;
  BurrLayerView layer[kBurrMaxLayers];
};

// The FPR of the filter `layout` describes over random non-keys: per
// layer, the share of starts not bumped, each checked on its block's
// column count, and the rest carried to the next layer. For tools and
// tests (a pass over every start).
double BurrLayoutFpr(const BurrLayout& layout);

// The reader, in two builds of the same code: BurrReader, portable, and
// BurrPopcntReader, whose queries are compiled for x86-64 CPUs with POPCNT
// (a column's parity is then one instruction, not a fold of about eight,
// and a query checks four columns or more). BurrDescriptor::Read picks
// BurrPopcntReader where CpuHasPopcnt; both answer alike on the same bytes.
template <bool kPopcnt>
class BasicBurrReader final : public FilterReader {
 public:
  // Requires BurrDescriptor::Parse to have accepted the bytes.
  explicit BasicBurrReader(const BurrLayout& layout) : layout_(layout) {}

  bool MayMatch(uint64_t hash) const override;
  void MayMatchBatch(size_t n, const uint64_t* hashes, bool* results) const override;

 private:
  SSTFILTER_ALWAYS_INLINE bool Query(uint64_t hash) const {
    uint64_t h = BurrHashing::FirstLayer(hash, layout_.seed);
    for (int l = 0; l < layout_.layers; ++l) {
      const BurrLayerView& layer = layout_.layer[l];
      const uint64_t start = FastRange64(h, layer.starts);
      if (!Bumped(layer, start)) return Check(layer, start, h);
      h = BurrHashing::NextLayer(h);
    }
    return true;  // bumped from the last layer: never written
  }

  SSTFILTER_ALWAYS_INLINE void QueryBatch(size_t n, const uint64_t* hashes, bool* results) const {
    constexpr size_t kChunk = 32;
    uint64_t h[kChunk];
    uint64_t s[kChunk];
    const BurrLayerView& first = layout_.layer[0];
    for (size_t base = 0; base < n; base += kChunk) {
      const size_t m = std::min(kChunk, n - base);
      for (size_t i = 0; i < m; ++i) {
        h[i] = BurrHashing::FirstLayer(hashes[base + i], layout_.seed);
        s[i] = FastRange64(h[i], first.starts);
        const uint64_t block = s[i] >> 6;
        __builtin_prefetch(first.codes + (s[i] >> (kBurrBucketLog + 2)));
        const char* w = first.words + 8 * BurrFirstWordOfBlock(block, first.narrow_blocks, layout_.columns);
        __builtin_prefetch(w);
        __builtin_prefetch(w + 8 * layout_.columns);
      }
      for (size_t i = 0; i < m; ++i) {
        results[base + i] = Bumped(first, s[i]) ? Query(hashes[base + i]) : Check(first, s[i], h[i]);
      }
    }
  }

  SSTFILTER_ALWAYS_INLINE static bool Bumped(const BurrLayerView& layer, uint64_t start) {
    const uint64_t bucket = start >> kBurrBucketLog;
    const unsigned code = (layer.codes[bucket >> 2] >> (2 * (bucket & 3))) & 3;
    return (start & (kBurrBucketSize - 1)) < BurrThreshold(code);
  }

  // The parity of the row with each column's 64 solution bits from
  // `start` is the key's fingerprint bit. Those bits are the column's word
  // in this block from bit `shift` on and its word in the next block below
  // bit `shift`, so the row is split once instead of each word shifted:
  // parity((a & row << shift) ^ (b & row >> (64 - shift))). With shift 0
  // the second part is empty, and b is read from this block (the last
  // block has no next). The first four columns settle 15 of 16 non-keys,
  // so they go first, unrolled, with one exit; the rest only for what
  // passes them.
  SSTFILTER_ALWAYS_INLINE bool Check(const BurrLayerView& layer, uint64_t start, uint64_t h) const {
    const uint64_t block = start >> 6;
    const unsigned shift = static_cast<unsigned>(start & 63);
    const int c = BurrColumnsOfBlock(block, layer.narrow_blocks, layout_.columns);
    const char* w = layer.words + 8 * BurrFirstWordOfBlock(block, layer.narrow_blocks, layout_.columns);
    const char* next = shift == 0 ? w : w + 8 * c;
    const uint64_t row = BurrHashing::Row(h);
    const uint64_t row_here = row << shift;
    const uint64_t row_next = (row >> 1) >> (63 - shift);
    const uint32_t fp = BurrHashing::Fingerprint(h);
    // Column, not a lambda: a lambda is a function of its own, compiled
    // without the POPCNT target and not always inlined.
    int j = 0;
    if (c >= 4) {
      const uint32_t first = Column(w, next, row_here, row_next, 0) |
                             Column(w, next, row_here, row_next, 1) << 1 |
                             Column(w, next, row_here, row_next, 2) << 2 |
                             Column(w, next, row_here, row_next, 3) << 3;
      if (first != (fp & 15)) return false;
      j = 4;
    }
    uint32_t found = 0;
    for (int k = j; k < c; ++k) found |= Column(w, next, row_here, row_next, k) << k;
    const uint32_t mask = (c >= 32 ? ~uint32_t{0} : (uint32_t{1} << c) - 1) & ~((uint32_t{1} << j) - 1);
    return found == (fp & mask);
  }

  // Column j's bit of the key's fingerprint, as Check says.
  SSTFILTER_ALWAYS_INLINE static uint32_t Column(const char* w, const char* next,
                                                 uint64_t row_here, uint64_t row_next, int j) {
    const uint64_t x = (DecodeFixed64(w + 8 * j) & row_here) ^ (DecodeFixed64(next + 8 * j) & row_next);
    return static_cast<uint32_t>(__builtin_parityll(x));
  }

  BurrLayout layout_;
};

// The queries, compiled once per build: the POPCNT one as a specialization
// with its own target.
template <bool kPopcnt>
inline bool BasicBurrReader<kPopcnt>::MayMatch(uint64_t hash) const {
  return Query(hash);
}
template <bool kPopcnt>
inline void BasicBurrReader<kPopcnt>::MayMatchBatch(size_t n, const uint64_t* hashes,
                                                    bool* results) const {
  QueryBatch(n, hashes, results);
}
template <>
SSTFILTER_TARGET_POPCNT inline bool BasicBurrReader<true>::MayMatch(uint64_t hash) const {
  return Query(hash);
}
template <>
SSTFILTER_TARGET_POPCNT inline void BasicBurrReader<true>::MayMatchBatch(size_t n,
                                                                        const uint64_t* hashes,
                                                                        bool* results) const {
  QueryBatch(n, hashes, results);
}

using BurrReader = BasicBurrReader<false>;
using BurrPopcntReader = BasicBurrReader<true>;

}  // namespace sstfilter
