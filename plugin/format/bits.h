// Bit counting without -mpopcnt: sstfilter builds for baseline x86-64, where
// __builtin_popcount is a library call (on every insert of the dynamic
// filter, a measurable share of its time) and __builtin_parityll a fold of
// about eight instructions. Where a hot loop counts bits in every step, a
// second copy compiled for POPCNT (SSTFILTER_TARGET_POPCNT) is chosen at
// run time (CpuHasPopcnt): the bumped ribbon filter's solve and queries.

#pragma once

#include <cstdint>

#if defined(__x86_64__) && defined(__GNUC__)
#define SSTFILTER_TARGET_POPCNT __attribute__((target("popcnt")))
#else
#define SSTFILTER_TARGET_POPCNT
#endif

namespace sstfilter {

// Whether to choose the code marked SSTFILTER_TARGET_POPCNT: on x86-64,
// where the CPU has POPCNT. Elsewhere the mark means nothing, and the
// portable code is the one compiled for what the target has (on some, a
// popcount is a library call where parity is not).
inline bool CpuHasPopcnt() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool has = __builtin_cpu_supports("popcnt");
  return has;
#else
  return false;
#endif
}

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
