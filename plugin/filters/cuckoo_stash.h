// The cuckoo stash: entries that found no slot within the eviction bound.
// Stored after the bucket table as 12-byte records, little-endian:
//   u64 bucket (one of the entry's two candidate buckets) | u32 fingerprint

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/coding.h"

namespace sstfilter {

// Small: each entry costs every query a compare, and needing more than a
// few means the table is too full, which a rebuild fixes better.
constexpr size_t kMaxStashEntries = 16;
constexpr size_t kStashEntrySize = 12;

struct StashEntry {
  uint64_t bucket;
  uint32_t fp;
};

inline void AppendStash(const std::vector<StashEntry>& stash,
                        std::string* dst) {
  for (const StashEntry& e : stash) {
    PutFixed64(dst, e.bucket);
    PutFixed32(dst, e.fp);
  }
}

// True if an entry of the stash at `stash` (num entries) answers for a key
// with fingerprint `fp` and candidate buckets i1, i2.
inline bool StashContains(const char* stash, size_t num, uint64_t i1,
                          uint64_t i2, uint32_t fp) {
  for (size_t k = 0; k < num; ++k) {
    const char* e = stash + k * kStashEntrySize;
    const uint64_t bucket = DecodeFixed64(e);
    if (DecodeFixed32(e + 8) == fp && (bucket == i1 || bucket == i2)) {
      return true;
    }
  }
  return false;
}

}  // namespace sstfilter
