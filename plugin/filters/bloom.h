// Cache-local Bloom filter: all probes of a key land in one 64-byte line,
// so a query touches one cache line (one miss when out of cache).
//
// Layout: a payload whose size is a multiple of 64 is L lines of 64 bytes;
// the key's line is FastRange64(hash, L) and its k probe bits come from
// repeatedly remixing the hash by an odd 64-bit multiplier. Any other
// payload is one single line of 8*size bits: an ordinary Bloom filter, used
// for filters under 64 bytes and by engines with small per-block filters
// (LevelDB), where every byte of budget counts more than cache locality.
//
// Space and accuracy: with kWholeLines a filter of n keys at c bits/key
// takes ceil(n*c/512) lines (one short line if under 64 bytes); with
// kExactBytes, ceil(n*c/8) bytes; plus the 8-byte trailer. Its FPR is
// that of a Bloom filter whose lines hold a Poisson(512/c) number of keys;
// BloomExpectedFpr computes it (docs/results/filter_bench_single.md has the
// measured rates).

#pragma once

#include "filters/bits_per_key.h"
#include "filters/filter.h"
#include "format/coding.h"
#include "format/hash.h"

namespace sstfilter {

// The trailer's kind byte of a Bloom filter (docs/format.md).
constexpr FilterKind kBloomKind{1};

// The probe count minimising BloomExpectedFpr at `bits_per_key`. Both take
// bits_per_key limited to [kMinBitsPerKey, kMaxBitsPerKey] as
// ClampBitsPerKey does (NaN as the minimum).
int BloomProbes(double bits_per_key);

// Expected FPR of a large cache-local Bloom filter.
double BloomExpectedFpr(double bits_per_key, int probes);

// The bits a key sets (builder) and tests (reader) in its line: probe i
// (i = 1..k) is bit FastRange32(top 32 bits of hash * kMul^i, line_bits).
// The running product's top bits depend on every bit of the hash. Part of
// the format: written down here once, for both sides.
class BloomProbeSequence {
 public:
  explicit BloomProbeSequence(uint64_t hash) : mixed_(hash) {}

  // The next probe's bit index in [0, line_bits). With line_bits a
  // constant 512 (whole lines) this compiles to a shift.
  SSTFILTER_ALWAYS_INLINE uint32_t Next(uint32_t line_bits) {
    mixed_ *= kMul;
    return FastRange32(static_cast<uint32_t>(mixed_ >> 32), line_bits);
  }

 private:
  // Odd 64-bit multiplier, 2^64 / golden ratio.
  static constexpr uint64_t kMul = 0x9e3779b97f4a7c15ULL;
  uint64_t mixed_;
};

enum class BloomSizing {
  kWholeLines,  // round up to whole 64-byte lines: one cache line a query
  kExactBytes,  // exactly ceil(n * bits_per_key / 8) bytes
};

// A Bloom filter's payload size and probe count: all the reader needs.
struct BloomShape {
  size_t payload_bytes = 0;  // 0: no key
  int probes = 1;
};

// The shape for `num_keys` keys at `bits_per_key` (taken as
// ClampBitsPerKey does) sized as `sizing` says.
BloomShape BloomShapeFor(size_t num_keys, double bits_per_key, BloomSizing sizing);

// Expected FPR of `shape` holding `num_keys` keys: BloomExpectedFpr for
// whole lines, the textbook formula for one line of all its bits.
double BloomShapeFpr(const BloomShape& shape, size_t num_keys);

// Appends a Bloom filter of `shape` over `hashes`, then its trailer.
void AppendBloomFilter(const BloomShape& shape, const std::vector<uint64_t>& hashes,
                       std::string* dst);

class BloomReader final : public FilterReader {
 public:
  // True if a payload of `payload_size` bytes probed `probes` times is a
  // shape BloomBuilder (bloom_kind.h) can produce.
  static bool ValidShape(size_t payload_size, int probes);

  // Requires ValidShape(payload_size, probes). `payload` is followed by at
  // least the trailer, and must outlive the reader.
  BloomReader(const char* payload, size_t payload_size, int probes);

  bool MayMatch(uint64_t hash) const override {
    if (num_lines_ == 0) return false;  // no key was added
    return ProbeLine(LineFor(hash), hash);
  }
  void MayMatchBatch(size_t n, const uint64_t* hashes,
                     bool* results) const override;

 private:
  static constexpr uint32_t kLineBits = 512;

  const char* LineFor(uint64_t hash) const {
    return payload_ + FastRange64(hash, num_lines_) * (kLineBits / 8);
  }

  bool ProbeLine(const char* line, uint64_t hash) const {
    // The common case, whole lines, with the width a constant.
    if (line_bits_ == kLineBits) return AllProbesSet(line, hash, kLineBits);
    return AllProbesSet(line, hash, line_bits_);
  }

  SSTFILTER_ALWAYS_INLINE bool AllProbesSet(const char* line, uint64_t hash,
                                            uint32_t line_bits) const {
    BloomProbeSequence probe(hash);
    for (int i = 0; i < probes_; ++i) {
      const uint32_t bit = probe.Next(line_bits);
      if (((line[bit >> 3] >> (bit & 7)) & 1) == 0) return false;
    }
    return true;
  }

  const char* payload_;
  uint64_t num_lines_;  // 0 for an empty filter
  uint32_t line_bits_;  // 512, or 8 * payload size for a single line
  int probes_;
};

}  // namespace sstfilter
