// The range of bits per key every kind accepts, and the clamp the builders
// apply to it. A kind may ask for more (cuckoo and fuse have higher
// minimums of their own); none accepts less than kMinBitsPerKey or more
// than kMaxBitsPerKey. The adapters reject values outside the range with
// an error Status; the clamp is the builders' defence against a value that
// got through anyway.

#pragma once

namespace sstfilter {

constexpr double kMinBitsPerKey = 1.0;
constexpr double kMaxBitsPerKey = 100.0;

// `bits_per_key` limited to [lo, hi], with NaN taken as `lo` (std::clamp
// passes NaN through, and a NaN cast to an integer is undefined). The
// smallest budget still gives a correct filter.
inline double ClampBitsPerKey(double bits_per_key, double lo, double hi) {
  if (!(bits_per_key >= lo)) return lo;  // NaN or below
  return bits_per_key > hi ? hi : bits_per_key;
}

}  // namespace sstfilter
