// Cuckoo filter readers, one per bucket codec. In a header so that engine
// adapters can hold the concrete (final) type and skip a virtual call per
// query (cuckoo_kind.h picks the type); everyone else gets them through
// NewFilterReader.

#pragma once

#include <algorithm>

#include "filters/cuckoo_filter.h"
#include "filters/cuckoo_hashing.h"
#include "filters/cuckoo_stash.h"
#include "filters/cuckoo_table.h"

namespace sstfilter {

// The parsed shape of a cuckoo payload: [buckets][stash]
// (CuckooDescriptor::Parse, cuckoo_kind.h, checks and fills it).
struct CuckooLayout {
  uint64_t num_buckets = 0;
  size_t stash_entries = 0;
  const char* stash = nullptr;
};

template <typename Codec>
class CuckooReader final : public FilterReader {
 public:
  CuckooReader(int fp_bits, const char* payload, const CuckooLayout& layout)
      : codec_(fp_bits),
        hashing_(fp_bits, std::max<uint64_t>(layout.num_buckets, 1)),
        table_(payload),
        layout_(layout) {}

  bool MayMatch(uint64_t hash) const override {
    if (layout_.num_buckets == 0) return false;  // no key was added
    const CuckooAddress a = hashing_.Locate(hash);
    const uint64_t i2 = hashing_.AltBucket(a.bucket, a.fp);
    return Probe(a.bucket, i2, a.fp);
  }

  void MayMatchBatch(size_t n, const uint64_t* hashes,
                     bool* results) const override {
    if (layout_.num_buckets == 0) {
      std::fill(results, results + n, false);
      return;
    }
    constexpr size_t kChunk = 32;
    CuckooAddress addr[kChunk];
    uint64_t alt[kChunk];
    const unsigned w = codec_.bucket_bits();
    for (size_t base = 0; base < n; base += kChunk) {
      const size_t m = std::min(kChunk, n - base);
      for (size_t i = 0; i < m; ++i) {
        addr[i] = hashing_.Locate(hashes[base + i]);
        alt[i] = hashing_.AltBucket(addr[i].bucket, addr[i].fp);
        __builtin_prefetch(table_ + addr[i].bucket * w / 8);
        __builtin_prefetch(table_ + alt[i] * w / 8);
      }
      for (size_t i = 0; i < m; ++i) {
        results[base + i] = Probe(addr[i].bucket, alt[i], addr[i].fp);
      }
    }
  }

 private:
  bool Probe(uint64_t i1, uint64_t i2, uint32_t fp) const {
    // Both buckets are read for every negative: issue both loads before
    // working on either, so their cache misses overlap.
    if (codec_.word_sized()) {
      const uint64_t w1 = codec_.LoadWord(table_, i1);
      const uint64_t w2 = codec_.LoadWord(table_, i2);
      // Both matches, no short circuit: neither waits on the other's branch.
      const bool in1 = codec_.WordContains(w1, fp);
      const bool in2 = codec_.WordContains(w2, fp);
      if (in1 | in2) return true;
    } else {
      const bool in1 = codec_.WideContains(table_, i1, fp);
      const bool in2 = codec_.WideContains(table_, i2, fp);
      if (in1 | in2) return true;
    }
    return layout_.stash_entries != 0 &&
           StashContains(layout_.stash, layout_.stash_entries, i1, i2, fp);
  }

  Codec codec_;
  CuckooHashing hashing_;
  const char* table_;
  CuckooLayout layout_;
};

}  // namespace sstfilter
