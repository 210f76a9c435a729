#include "filter.h"

#include <algorithm>

#include "bloom.h"
#include "cuckoo_reader.h"
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

// What a reader needs of filter bytes that passed every check.
struct ParsedFilter {
  FilterKind kind = FilterKind::kBloom;
  size_t payload_size = 0;
  int param_a = 0;
  CuckooLayout cuckoo;  // cuckoo kinds only
};

// The one place that decides whether filter bytes are trusted: trailer
// (marker, version, kind, checksum), then the kind's parameters and shape.
bool ParseFilter(const char* data, size_t size, ParsedFilter* f) {
  Trailer trailer;
  if (!ParseTrailer(data, size, &trailer, &f->payload_size)) return false;
  f->kind = trailer.kind;
  f->param_a = trailer.param_a;
  if (trailer.kind == FilterKind::kBloom) {
    return trailer.param_b == 0 && BloomReader::ValidShape(f->payload_size, f->param_a);
  }
  return ParseCuckooLayout(trailer, data, f->payload_size, &f->cuckoo);
}

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
  ParsedFilter f;
  if (!ParseFilter(data, size, &f)) return std::make_unique<AlwaysMatchReader>();
  switch (f.kind) {
    case FilterKind::kBloom:
      return std::make_unique<BloomReader>(data, f.payload_size, f.param_a);
    case FilterKind::kCuckoo:
      return std::make_unique<PlainCuckooReader>(f.param_a, data, f.cuckoo);
    case FilterKind::kCuckooSemiSorted:
      return std::make_unique<SemiSortedCuckooReader>(f.param_a, data, f.cuckoo);
  }
  return std::make_unique<AlwaysMatchReader>();
}

bool FilterMayMatch(const char* data, size_t size, uint64_t hash) {
  ParsedFilter f;
  if (!ParseFilter(data, size, &f)) return true;
  switch (f.kind) {
    case FilterKind::kBloom:
      return BloomReader(data, f.payload_size, f.param_a).MayMatch(hash);
    case FilterKind::kCuckoo:
      return PlainCuckooReader(f.param_a, data, f.cuckoo).MayMatch(hash);
    case FilterKind::kCuckooSemiSorted:
      return SemiSortedCuckooReader(f.param_a, data, f.cuckoo).MayMatch(hash);
  }
  return true;
}

}  // namespace sstfilter
