// CuckooDescriptor::Parse: checking a cuckoo payload against the shapes the
// builder writes.

#include "filters/cuckoo_kind.h"

namespace sstfilter {

bool CuckooDescriptor::Parse(const Trailer& trailer, const char* payload,
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

}  // namespace sstfilter
