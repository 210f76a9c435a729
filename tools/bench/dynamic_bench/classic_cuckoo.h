// The classic cuckoo filter (Fan et al., CoNEXT 2014) as its reference code
// builds it, for dynamic_bench's baseline only: a power-of-two table of
// buckets of four 12-bit fingerprints, partial-key alternate bucket
// i2 = i1 XOR (hash(fp) & mask), bounded random-walk eviction with one
// victim slot. Insert and Erase, no growth: the table is sized once for the
// expected key count, rounded up to a power of two.
// Single-threaded; not part of the library.

#pragma once

#include <cstdint>
#include <vector>

#include "format/hash.h"

namespace dynamic_bench {

class ClassicCuckoo {
 public:
  static constexpr unsigned kFpBits = 12;
  static uint64_t BucketsFor(uint64_t expected_keys) {
    uint64_t buckets = 1;
    while (static_cast<double>(buckets) * 4 * 0.95 < static_cast<double>(expected_keys)) {
      buckets <<= 1;
    }
    return buckets;
  }
  // Bytes of the reference's packed table: 4 x 12 bits a bucket.
  static size_t BytesFor(uint64_t expected_keys) { return BucketsFor(expected_keys) * 6; }
  explicit ClassicCuckoo(uint64_t expected_keys) {
    const uint64_t buckets = BucketsFor(expected_keys);
    mask_ = buckets - 1;
    table_.assign(buckets, 0);  // 4 x 16-bit slots per bucket, 12 bits used
  }
  size_t MemoryBytes() const { return table_.size() * 6; }

  bool Insert(uint64_t hash) {
    if (victim_used_) return false;
    uint64_t i = Index(hash);
    uint16_t fp = Fp(hash);
    if (Add(i, fp) || Add(Alt(i, fp), fp)) return true;
    uint64_t rng = hash;
    for (int kick = 0; kick < 500; ++kick) {
      rng = sstfilter::Mix64(rng + kick);
      const unsigned k = rng & 3;
      if ((rng >> 2) & 1) i = Alt(i, fp);
      const uint16_t old = Get(i, k);
      Set(i, k, fp);
      fp = old;
      i = Alt(i, fp);
      if (Add(i, fp)) return true;
    }
    victim_used_ = true;  // keeps the last homeless entry: no false negative
    victim_index_ = i;
    victim_fp_ = fp;
    return true;
  }
  bool Contains(uint64_t hash) const {
    const uint64_t i1 = Index(hash);
    const uint16_t fp = Fp(hash);
    const uint64_t i2 = Alt(i1, fp);
    if (Has(i1, fp) || Has(i2, fp)) return true;
    return victim_used_ && victim_fp_ == fp && (victim_index_ == i1 || victim_index_ == i2);
  }
  bool Erase(uint64_t hash) {
    const uint64_t i1 = Index(hash);
    const uint16_t fp = Fp(hash);
    for (uint64_t i : {i1, Alt(i1, fp)}) {
      for (unsigned k = 0; k < 4; ++k) {
        if (Get(i, k) == fp) {
          Set(i, k, 0);
          return true;
        }
      }
    }
    return false;
  }
  void Prefetch(uint64_t hash) const {
    const uint64_t i1 = Index(hash);
    __builtin_prefetch(&table_[i1]);
    __builtin_prefetch(&table_[Alt(i1, Fp(hash))]);
  }

 private:
  uint64_t Index(uint64_t hash) const { return (hash >> 32) & mask_; }
  static uint16_t Fp(uint64_t hash) {
    const uint16_t fp = static_cast<uint16_t>(hash & ((1u << kFpBits) - 1));
    return fp == 0 ? 1 : fp;
  }
  uint64_t Alt(uint64_t i, uint16_t fp) const {
    return (i ^ (static_cast<uint64_t>(fp) * 0x5bd1e995ULL)) & mask_;
  }
  uint16_t Get(uint64_t i, unsigned k) const {
    return static_cast<uint16_t>(table_[i] >> (16 * k)) & 0xfff;
  }
  void Set(uint64_t i, unsigned k, uint16_t fp) {
    table_[i] = (table_[i] & ~(0xffffULL << (16 * k))) | (static_cast<uint64_t>(fp) << (16 * k));
  }
  bool Has(uint64_t i, uint16_t fp) const {
    const uint64_t w = table_[i];
    for (unsigned k = 0; k < 4; ++k) {
      if (((w >> (16 * k)) & 0xfff) == fp) return true;
    }
    return false;
  }
  bool Add(uint64_t i, uint16_t fp) {
    for (unsigned k = 0; k < 4; ++k) {
      if (Get(i, k) == 0) {
        Set(i, k, fp);
        return true;
      }
    }
    return false;
  }

  uint64_t mask_;
  // Stored 16 bits a slot for speed; MemoryBytes reports the 12 bits a slot
  // the reference packed table uses.
  std::vector<uint64_t> table_;
  bool victim_used_ = false;
  uint64_t victim_index_ = 0;
  uint16_t victim_fp_ = 0;
};

}  // namespace dynamic_bench
