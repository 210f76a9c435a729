// Cuckoo filter queries over a finished filter's bytes.

#include <algorithm>

#include "cuckoo_filter.h"
#include "cuckoo_hashing.h"
#include "cuckoo_stash.h"
#include "cuckoo_table.h"

namespace sstfilter {
namespace {

// The parsed shape of a cuckoo payload: [buckets][stash].
struct CuckooLayout {
  uint64_t num_buckets = 0;
  size_t stash_entries = 0;
  const char* stash = nullptr;
};

bool ParseLayout(const Trailer& trailer, const char* payload,
                 size_t payload_size, CuckooLayout* layout) {
  const int f = trailer.param_a;
  if (f < kMinFingerprintBits || f > kMaxFingerprintBits) return false;
  if (trailer.param_b > kMaxStashEntries) return false;
  const size_t stash_bytes = trailer.param_b * kStashEntrySize;
  if (payload_size < stash_bytes) return false;
  const size_t table_bytes = payload_size - stash_bytes;
  const unsigned w = CuckooBucketBits(trailer.kind, f);
  // w >= 12, so the bucket count is the only one whose packed size is
  // exactly table_bytes.
  const uint64_t buckets = static_cast<uint64_t>(table_bytes) * 8 / w;
  if ((buckets * w + 7) / 8 != table_bytes) return false;
  if (buckets == 0 && trailer.param_b != 0) return false;
  layout->num_buckets = buckets;
  layout->stash_entries = trailer.param_b;
  layout->stash = payload + table_bytes;
  return true;
}

template <typename Codec>
class CuckooReader : public FilterReader {
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
    if (codec_.Contains(table_, i1, fp) || codec_.Contains(table_, i2, fp)) {
      return true;
    }
    return layout_.stash_entries != 0 &&
           StashContains(layout_.stash, layout_.stash_entries, i1, i2, fp);
  }

  Codec codec_;
  CuckooHashing hashing_;
  const char* table_;
  CuckooLayout layout_;
};

}  // namespace

std::unique_ptr<FilterReader> NewCuckooReader(const Trailer& trailer,
                                              const char* payload,
                                              size_t payload_size) {
  CuckooLayout layout;
  if (!ParseLayout(trailer, payload, payload_size, &layout)) return nullptr;
  if (trailer.kind == FilterKind::kCuckooSemiSorted) {
    return std::make_unique<CuckooReader<SemiSortedBucketCodec>>(
        trailer.param_a, payload, layout);
  }
  return std::make_unique<CuckooReader<PlainBucketCodec>>(trailer.param_a,
                                                          payload, layout);
}

bool CuckooMayMatchOnce(const Trailer& trailer, const char* payload,
                        size_t payload_size, uint64_t hash, bool* valid) {
  CuckooLayout layout;
  *valid = ParseLayout(trailer, payload, payload_size, &layout);
  if (!*valid) return true;
  if (trailer.kind == FilterKind::kCuckooSemiSorted) {
    return CuckooReader<SemiSortedBucketCodec>(trailer.param_a, payload, layout)
        .MayMatch(hash);
  }
  return CuckooReader<PlainBucketCodec>(trailer.param_a, payload, layout)
      .MayMatch(hash);
}

}  // namespace sstfilter
