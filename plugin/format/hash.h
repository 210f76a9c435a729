// Key hashing and content checksums.
//
// Filters persist, so hashing is fixed: XXH3-64 with constant seeds, the
// same on every platform and in every process. Never std::hash, never a
// per-process seed.

#pragma once

#include <cstddef>
#include <cstdint>

// Inlined: hashing is a large share of a filter query's cost.
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

// XXH3's output is stable only from xxHash 0.8.0 on; an older header could
// hash keys differently from the build that wrote a filter, and a filter
// with a valid checksum would then miss keys. format_test.cc pins it.
#if !defined(XXH_VERSION_NUMBER) || XXH_VERSION_NUMBER < 800
#error "sstfilter needs xxhash.h 0.8.0 or later: XXH3's output is stable only from 0.8.0 (Debian 12: libxxhash-dev 0.8.1)"
#endif

namespace sstfilter {

// Arbitrary, fixed by format version 1.
constexpr uint64_t kKeyHashSeed = 0x73737466696c7431ULL;  // "sstfilt1"

// The 64-bit hash every filter is built from. Stable forever for format
// version 1: changing it changes which bits a key sets.
inline uint64_t KeyHash(const char* data, size_t size) {
  return XXH3_64bits_withSeed(data, size, kKeyHashSeed);
}

// Checksum stored in each filter's trailer: the low 32 bits of XXH3-64 with
// a seed distinct from KeyHash's.
uint32_t ContentChecksum(const char* data, size_t size);

__extension__ typedef unsigned __int128 Uint128;  // GCC and Clang

// Maps a uniformly distributed 64-bit value onto [0, range) without division
// (Lemire's multiply-shift). Uses the high bits of `x`.
inline uint64_t FastRange64(uint64_t x, uint64_t range) {
  return static_cast<uint64_t>(
      (static_cast<Uint128>(x) * range) >> 64);
}

// Same for 32-bit values; uses the high bits of `x`.
inline uint32_t FastRange32(uint32_t x, uint32_t range) {
  return static_cast<uint32_t>((static_cast<uint64_t>(x) * range) >> 32);
}

// A cheap, invertible 64-bit mixer (the murmur3 finalizer) for deriving
// further well-spread values from a hash or a fingerprint.
inline uint64_t Mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

}  // namespace sstfilter
