// Bit counting without -mpopcnt: sstfilter builds for baseline x86-64, where
// __builtin_popcount is a library call (on every insert of the dynamic
// filter, a measurable share of its time).

#pragma once

#include <cstdint>

namespace sstfilter {

// Set bits in each byte of x, in that byte (portable SWAR).
inline uint64_t ByteCounts(uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555ULL;
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  return (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
}

inline uint64_t PopCount(uint64_t x) { return (ByteCounts(x) * 0x0101010101010101ULL) >> 56; }

// PopCount of a mask below 256 (a bucket's slots): one byte's count.
inline unsigned PopCount8(uint32_t x) { return static_cast<unsigned>(ByteCounts(x)); }

}  // namespace sstfilter
