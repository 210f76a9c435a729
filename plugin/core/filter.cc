#include "filter.h"

#include <algorithm>

#include "bloom.h"
#include "cuckoo_filter.h"
#include "trailer.h"

namespace sstfilter {
namespace {

// The reader for anything doubtful: every key may match.
class AlwaysMatchReader : public FilterReader {
 public:
  bool MayMatch(uint64_t) const override { return true; }
  void MayMatchBatch(size_t n, const uint64_t*, bool* results) const override {
    std::fill(results, results + n, true);
  }
};

}  // namespace

size_t FilterBuilder::MaxKeysForSize(size_t bytes) const {
  if (FilterSize(1) > bytes) return 0;
  // FilterSize grows with the key count; find the last count that fits.
  size_t lo = 1, hi = std::max<size_t>(2, bytes * 8);
  while (FilterSize(hi) <= bytes) hi *= 2;
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    (FilterSize(mid) <= bytes ? lo : hi) = mid;
  }
  return lo;
}

void FilterReader::MayMatchBatch(size_t n, const uint64_t* hashes,
                                 bool* results) const {
  for (size_t i = 0; i < n; ++i) results[i] = MayMatch(hashes[i]);
}

std::unique_ptr<FilterReader> NewFilterReader(const char* data, size_t size) {
  Trailer trailer;
  size_t payload_size = 0;
  if (ParseTrailer(data, size, &trailer, &payload_size)) {
    if (trailer.kind == FilterKind::kBloom) {
      if (trailer.param_b == 0 &&
          BloomReader::ValidShape(payload_size, trailer.param_a)) {
        return std::make_unique<BloomReader>(data, payload_size, trailer.param_a);
      }
    } else if (auto reader = NewCuckooReader(trailer, data, payload_size)) {
      return reader;
    }
  }
  return std::make_unique<AlwaysMatchReader>();
}

bool FilterMayMatch(const char* data, size_t size, uint64_t hash) {
  Trailer trailer;
  size_t payload_size = 0;
  if (!ParseTrailer(data, size, &trailer, &payload_size)) return true;
  if (trailer.kind == FilterKind::kBloom) {
    if (trailer.param_b != 0 ||
        !BloomReader::ValidShape(payload_size, trailer.param_a)) {
      return true;
    }
    return BloomReader(data, payload_size, trailer.param_a).MayMatch(hash);
  }
  bool valid = false;
  const bool match = CuckooMayMatchOnce(trailer, data, payload_size, hash, &valid);
  return !valid || match;
}

}  // namespace sstfilter
