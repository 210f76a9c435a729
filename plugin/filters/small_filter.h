// The small form: a filter for at most kMaxSmallKeys keys whose overhead
// fits a few dozen keys (LevelDB's one filter per 2 KiB of data, RocksDB's
// small partitions). docs/format.md draws it; docs/design/small_form.md has
// the math.
//
// Payload: the keys' fingerprints v = FastRange64(hash, N), sorted, stored
// Elias-Fano style: each v splits into a high part v >> k and k low bits;
// the high parts are a bitmap with element i at bit (v_i >> k) + i (a run
// of ones per bucket, each bucket ended by a zero), the low bits follow,
// packed. Trailer: 2 bytes (n <= 16: n - 1 in 4 bits, an 11-bit check) or
// 3 bytes (n up to 1024: n - 1 in 10 bits, a 13-bit check), the top bit
// of the last byte saying which. N and k are not stored: both follow from
// n and the payload size, so a filter of n keys in P payload bits has
//
//     k = min(56, max(0, ceil((P + 1) / n) - 3))
//     buckets = min(P - n (k + 1) + 1, 2^(64 - k) - 1),   N = buckets * 2^k
//
// which uses every payload bit. FPR <= n / N, about 2^-(b - 1.9) at b
// payload bits/key: within 2 bits/key of the log2(1/FPR) bound, against a
// Bloom filter's 1.44x. Parsing counts the bitmap's ones (n + buckets
// bits, about 2.4 bits/key) and keeps 16 rank samples; a query then scans
// at most a sixteenth of the bitmap and compares a few k-bit low parts.
//
// Protection: the check is XXH3 over the whole filter; with the format
// rule that no small filter passes a version-1 reader's trailer checks
// (the builder falls back to a version-1 filter in the rare case it
// would), it is also what marks the form. Random damage passes it with
// probability 2^-11 or 2^-13; LevelDB and RocksDB checksum every block on
// disk (docs/format.md says what a damaged small filter can do). Whatever
// the bytes, the reader never reads outside them and answers "may match"
// to any structure it cannot decode.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "filters/filter.h"

namespace sstfilter {

// Names the small form in memory (ParsedFilter, FilterPlan). Never a
// version-1 kind byte: the small form has no such trailer, and the
// registry (kinds.h) lets no kind take 5.
constexpr FilterKind kSmallFormKind{5};

constexpr size_t kMaxSmallKeys = 1024;        // n - 1 fits 10 bits
constexpr size_t kMaxShortTrailerKeys = 16;   // n - 1 fits 4 bits
constexpr unsigned kMaxSmallLowBits = 56;

// 2 bytes for up to kMaxShortTrailerKeys keys, else 3.
size_t SmallTrailerSize(size_t num_keys);

// The decoded shape of a small filter.
struct SmallLayout {
  static constexpr unsigned kRankSamples = 16;

  uint64_t num_keys = 0;     // n, 1..kMaxSmallKeys
  unsigned low_bits = 0;     // k
  uint64_t buckets = 0;      // N >> k, >= 1
  uint64_t range = 0;        // N = buckets << k, < 2^64
  uint64_t bitmap_bits = 0;  // n + buckets - 1
  uint64_t payload_bits = 0;
  // Not stored in the filter: ParseSmallFilter counts them while checking
  // the bitmap, so that a query scans at most sample_words words of it.
  // zeros_before[j]: zeros in the bitmap's first j * sample_words words,
  // for j < num_samples.
  uint64_t sample_words = 1;
  unsigned num_samples = 0;
  uint32_t zeros_before[kRankSamples] = {};
};

// The layout of a small filter of `num_keys` distinct keys in
// `filter_bytes` bytes (its trailer included), by the rule above; false if
// none fits (num_keys 0 or over kMaxSmallKeys, payload bits under n or
// over 128 n + 64).
bool SmallLayoutFor(size_t num_keys, size_t filter_bytes, SmallLayout* layout);

// Expected FPR, n / N, of the small filter of `num_keys` distinct keys in
// `filter_bytes`; 1 if none fits.
double SmallExpectedFpr(size_t num_keys, size_t filter_bytes);

// Appends a small filter of exactly `filter_bytes` bytes over `hashes`
// (any order; repeats are stored once) and returns true; or appends
// nothing and returns false when no layout fits, or when the finished
// bytes would pass a version-1 reader's trailer and shape checks (well
// under one key set in a million; the caller then writes a version-1
// filter).
bool AppendSmallFilter(const std::vector<uint64_t>& hashes, size_t filter_bytes,
                       std::string* dst);

// True if [data, data + size) is a small filter: its check matches, its
// trailer gives a valid layout, and the bitmap holds exactly n ones.
// Callers try version 1 first (ParseFilter does).
bool ParseSmallFilter(const char* data, size_t size, SmallLayout* layout);

// Writes the trailer of a small filter of `num_keys` keys (1 to
// kMaxSmallKeys) over the last SmallTrailerSize(num_keys) of the `size`
// bytes at `data`, its check computed over the bytes before it. For the
// builder, the fuzz targets and tests.
void SealSmallFilter(char* data, size_t size, size_t num_keys);

class SmallReader final : public FilterReader {
 public:
  // Requires ParseSmallFilter(data, size, &layout). The bytes must outlive
  // the reader.
  SmallReader(const char* data, size_t size, const SmallLayout& layout)
      : data_(data), size_(size), layout_(layout) {}
  SmallReader(const SmallReader&) = default;

  bool MayMatch(uint64_t hash) const override;

 private:
  const char* data_;
  size_t size_;  // whole filter, trailer included: loads stay inside it
  SmallLayout layout_;
};

}  // namespace sstfilter
