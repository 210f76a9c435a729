// Keys and random numbers for filter_bench.
//
// Keys are regenerated from 64-bit ids instead of being stored: the SST
// regime adds tens of millions of keys, and only one filter's keys (or one
// chunk of queries) needs to exist at a time.
//
// Key layout, kKeySize = 20 bytes:
//
//   0      4                      12                     20
//   +------+----------------------+----------------------+
//   | "key"| id, big-endian       | finalizer(id^seed) LE|
//   +------+----------------------+----------------------+
//
// - a fixed prefix, as keys of one table or column family share;
// - the id big-endian, so increasing ids are sorted keys, the order in which
//   an SST builder sees them;
// - a mixed copy of the id, so keys differ in many bytes and a filter whose
//   hash only looked at part of the key would show it in its FPR.
//
// Positive (added) keys have ids below 2^63, negative (query-only) keys
// have bit 63 set: the two sets are disjoint by construction, so every
// "may match" on a negative key is a genuine false positive.

#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <rocksdb/slice.h>

namespace filter_bench {

constexpr size_t kKeySize = 20;
constexpr uint64_t kNegativeIdBit = uint64_t{1} << 63;

// A bijective 64-bit mixer (SplitMix64's finalizer): distinct inputs give
// distinct outputs, so mixed ids never collide. Not format/hash.h's Mix64
// (another finalizer, which the filters' formats pin): the benchmark's key
// sets, and so every published figure, are made with this one.
inline uint64_t SplitMixFinalizer(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// Fixed-seed pseudo-random numbers (SplitMix64): identical flags give
// identical keys, filters and queries on every run and platform.
class Random64 {
 public:
  explicit Random64(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return SplitMixFinalizer(state_);
  }

  // Uniform in [0, n) for n > 0 (multiply-shift: no modulo bias worth
  // measuring, no division).
  uint64_t Uniform(uint64_t n) {
    __extension__ typedef unsigned __int128 Wide;  // GCC/Clang; quiet -Wpedantic
    return static_cast<uint64_t>((static_cast<Wide>(Next()) * n) >> 64);
  }

 private:
  uint64_t state_;
};

class KeyMaker {
 public:
  explicit KeyMaker(uint64_t seed) : seed_(seed) {}

  // Writes the key of `id` to out[0, kKeySize).
  void Write(uint64_t id, char* out) const;

 private:
  uint64_t seed_;
};

// kKeySize-byte keys stored back to back, with a Slice over each. The
// Slices point into this object: keep it alive and unresized while they
// are used.
class KeyBatch {
 public:
  // Makes room for n keys; their contents are unspecified until written.
  void Resize(size_t n);
  size_t size() const { return slices_.size(); }
  char* mutable_key(size_t i) { return &bytes_[i * kKeySize]; }
  const rocksdb::Slice& key(size_t i) const { return slices_[i]; }
  // &key(i): the form batched MayMatch takes.
  rocksdb::Slice* key_ptr(size_t i) { return &slices_[i]; }

 private:
  std::vector<char> bytes_;
  std::vector<rocksdb::Slice> slices_;
};

}  // namespace filter_bench
