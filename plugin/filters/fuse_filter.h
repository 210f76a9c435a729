// Binary fuse filter (Graf and Lemire, "Binary Fuse Filters: Fast and
// Smaller Than Xor Filters", 2022), for filters built once from a known key
// set. Each key owns `arity` slots of an array of f-bit fingerprints, one
// in each of `arity` consecutive segments (fuse_hashing.h), and the
// builder fills the array so that the XOR of a key's slots is its
// fingerprint. A query reads those slots and compares: an added key always
// matches; any other key matches with probability 2^-f, or 2^-(f+1) if
// its slots lie in the array's wide segments (below).
//
// Construction peels the key-slot hypergraph: a slot held by one key fixes
// that key last, and removing it frees more. Peeling succeeds with high
// probability with Graf and Lemire's fitted slots per key: 3-wise 1.125
// from 1M keys, 1.18 at 100k, 1.25 at 10k; 4-wise 1.075 from 1M, and from
// 10k keys our own tighter fit, 1.113 at 100k, 1.19 at 10k (a first
// peeling then fails up to about 1 time in 10). It can fail, and then it
// is retried with another seed.
//
// Space: the filter is `(segments + arity - 1) * 2^segment_log` slots of f
// bits plus a 16-byte header, with f the largest width (at most 32) that
// fits n * bits_per_key bits. What a whole f leaves of the budget buys
// wide segments of (f+1)-bit slots (FuseShape), so the FPR falls between
// 2^-f and 2^-(f+1) as the budget grows, instead of in steps; the arity is
// the one with the lower FPR so (in practice 4-wise, at the cost of a
// fourth load per query, issued with the other three), 3-wise on a tie.
// A fuse filter never takes more than floor(n * bits_per_key / 8) payload
// bytes (the cuckoo filter that small key counts may get is as
// CuckooBuilder sizes it, stash and rare growth included).
//
// Failure cannot reach the user:
// - Non-adjacent duplicate hashes (which no peeling separates) are found
//   when peeling stalls, and removed; peeling then goes on.
// - A stalled peeling is retried with a new seed, up to kMaxFuseAttempts
//   attempts; after them (which at the sizes chosen has never been seen)
//   the builder writes the plan's Bloom filter of the budget instead
//   (fuse_kind.h). Never a false negative either way.
// - Where a fuse filter is not the most accurate filter that fits the
//   budget (small key counts), the planner plans a cuckoo or Bloom filter
//   instead (fuse_kind.h). By the models: cuckoo at some counts up to about
//   1,550 keys at 10 bits/key, 3,750 at 12, 10,300 at 16 (and further
//   above: 29,000 at 20); Bloom up to about 1,200-1,450 keys at 4 to 8
//   bits/key, and for a handful of keys. Readers dispatch on the
//   trailer's kind.
//
// Memory while building, on top of the 8 bytes/key of hashes the builder
// already holds: a moment at 8 more bytes/key while large key sets are
// ordered by slot, then 13 bytes per slot while peeling (fuse_peeler.h: an
// XOR of key hashes, 8, a count, 1, and the peeling order, 4); the hashes
// go once the peeling succeeds, before the filter is allocated. With
// 1.075-1.125 slots per key for large sets, the peak is 22-22.6 bytes/key
// including the hashes (tools/research/large_filter measured 21.7 at 50M keys),
// under twice the cuckoo builder's 11.5.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "filters/bits_per_key.h"
#include "filters/filter.h"

namespace sstfilter {

// The trailer's kind byte of a binary fuse filter (docs/format.md).
constexpr FilterKind kFuseKind{4};

// Large filters need f >= 3 to beat a Bloom filter of the same budget, and
// get it from 4 bits/key (3-wise: 3 x 1.125 = 3.4 bits/key); below, the
// budget buys a Bloom filter as good, and the policy asks for one.
constexpr double kMinFuseBitsPerKey = 4.0;
constexpr int kMinFuseFingerprintBits = 1;
constexpr int kMaxFuseFingerprintBits = 32;
constexpr size_t kFuseHeaderSize = 16;
constexpr int kMaxFuseAttempts = 12;
// Slot indices are 32 bits in the peeling order (at most 1.25 slots/key).
constexpr uint64_t kMaxFuseKeys = (uint64_t{1} << 30) - 1;

// The first `wide_segments` segments of the array hold (f+1)-bit slots,
// the rest f-bit ones, which spends the budget left over by a whole f
// (a fractional fingerprint width): a key whose slots all lie in wide
// segments is checked on f+1 bits, any other on f. The peeling is the same
// either way. At most 2^24 - 1 (three header bytes).
constexpr uint64_t kMaxFuseWideSegments = (uint64_t{1} << 24) - 1;

struct FuseShape {
  int arity = 3;
  int fp_bits = 0;       // 0: no fuse filter fits; the builder writes cuckoo or Bloom
  int segment_log = 0;
  uint64_t segment_count = 0;
  uint64_t wide_segments = 0;  // < segment_count + arity - 1; 0 if f = 32

  uint64_t num_slots() const {
    return (segment_count + static_cast<uint64_t>(arity) - 1) << segment_log;
  }
  uint64_t array_bits() const {
    return num_slots() * static_cast<uint64_t>(fp_bits) + (wide_segments << segment_log);
  }
  size_t payload_size() const {
    return kFuseHeaderSize + static_cast<size_t>((array_bits() + 7) / 8);
  }
  // Share of keys (and of non-keys' queries) checked on f+1 bits: those
  // whose first slot's segment is below wide_segments - (arity - 1).
  double wide_share() const;
  // p * 2^-(f+1) + (1 - p) * 2^-f with p = wide_share(); 1 if fp_bits is 0.
  double expected_fpr() const;
};

// The fuse shape for `num_keys` keys with the lowest expected FPR within
// n * bits_per_key bits: for each arity the longest whole fingerprint, then
// as many wide segments as the rest pays for; 3-wise on a tie. fp_bits 0
// if none fits. bits_per_key is taken as ClampBitsPerKey does.
FuseShape ChooseFuseShape(size_t num_keys, double bits_per_key);

// The segment layout alone, for `num_keys` keys and `arity` (3 or 4).
FuseShape FuseLayoutFor(size_t num_keys, int arity);

// Peels `keys` (no adjacent repeats) into a fuse filter of `shape` and
// appends it with its trailer. Returns false, having appended nothing and
// left *keys holding the hashes given, if all kMaxFuseAttempts peelings
// fail; otherwise *keys is consumed. (Tests force failures through
// fuse_test_seam.h.)
bool AppendFuseFilter(const FuseShape& shape, std::vector<uint64_t>* keys, std::string* dst);

class FuseBuilder : public FilterBuilder {
 public:
  // Requires kMinFuseBitsPerKey <= bits_per_key <= kMaxBitsPerKey (clamped
  // defensively, NaN to the minimum).
  explicit FuseBuilder(double bits_per_key);

  FilterPlan Plan(size_t num_keys) const override;  // FuseDescriptor::Plan

 private:
  double bits_per_key_;
};

// Reader: fuse_reader.h (through NewFilterReader for most callers).

}  // namespace sstfilter
