// Where a hash lives in a cuckoo table of B buckets with f-bit
// fingerprints; shared by the builder and the reader (see cuckoo_filter.h
// for the formulas).

#pragma once

#include <cstdint>

#include "format/hash.h"

namespace sstfilter {

struct CuckooAddress {
  uint64_t bucket;  // the first candidate bucket, i1
  uint32_t fp;      // in [1, 2^f - 1]
};

class CuckooHashing {
 public:
  // Requires num_buckets > 0 and 4 <= fp_bits <= 32.
  CuckooHashing(int fp_bits, uint64_t num_buckets)
      : fp_range_((uint64_t{1} << fp_bits) - 1), num_buckets_(num_buckets) {}

  CuckooAddress Locate(uint64_t hash) const {
    const uint64_t low = hash & 0xffffffffULL;
    return {FastRange64(hash, num_buckets_),
            static_cast<uint32_t>(1 + ((low * fp_range_) >> 32))};
  }

  // The other candidate bucket of an entry with fingerprint `fp` in
  // `bucket`. AltBucket(AltBucket(i, fp), fp) == i.
  uint64_t AltBucket(uint64_t bucket, uint32_t fp) const {
    // One multiply spreads the fingerprint over 64 bits (a Weyl step), and
    // FastRange64 takes the high bits: the second bucket's address is ready
    // two multiplies after the fingerprint, which a query waits on.
    const uint64_t t = FastRange64(fp * kAltMul, num_buckets_);
    return t >= bucket ? t - bucket : t + num_buckets_ - bucket;
  }

  uint64_t num_buckets() const { return num_buckets_; }

 private:
  static constexpr uint64_t kAltMul = 0x9e3779b97f4a7c15ULL;  // 2^64 / golden ratio

  uint64_t fp_range_;
  uint64_t num_buckets_;
};

}  // namespace sstfilter
