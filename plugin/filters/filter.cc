#include "filters/filter.h"

#include <algorithm>
#include <type_traits>

#include "filters/planner.h"
#include "filters/reader_dispatch.h"
#include "filters/small_filter.h"
#include "format/trailer.h"

namespace sstfilter {

bool ParseFilter(const char* data, size_t size, ParsedFilter* f, ChecksumCheck check) {
  // A filter that passes version 1's structure is version 1, intact or not:
  // the small-form builder never writes one that does.
  if (ParseVersion1Filter(data, size, f, ChecksumCheck::kEngineVerified)) {
    return check == ChecksumCheck::kEngineVerified || TrailerChecksumMatches(data, size);
  }
  if (!ParseSmallFilter(data, size, &f->small)) return false;
  f->kind = FilterKind::kSmallSet;
  f->payload_size = size - SmallTrailerSize(f->small.num_keys);
  f->param_a = f->param_b = 0;
  return true;
}

bool ParseVersion1Filter(const char* data, size_t size, ParsedFilter* f,
                         ChecksumCheck check) {
  Trailer trailer;
  if (!ParseTrailer(data, size, &trailer, &f->payload_size, check)) return false;
  f->kind = trailer.kind;
  f->param_a = trailer.param_a;
  f->param_b = trailer.param_b;
  switch (trailer.kind) {
    case FilterKind::kBloom:
      return trailer.param_b == 0 && BloomReader::ValidShape(f->payload_size, f->param_a);
    case FilterKind::kCuckoo:
    case FilterKind::kCuckooSemiSorted:
      return ParseCuckooLayout(trailer, data, f->payload_size, &f->cuckoo);
    case FilterKind::kFuse:
      return ParseFuseLayout(trailer, data, f->payload_size, &f->fuse);
    case FilterKind::kBurr:
      return ParseBurrLayout(trailer, data, f->payload_size, &f->burr);
    case FilterKind::kSmallSet:
      break;  // never a version-1 kind (ParseTrailer refuses it)
  }
  return false;
}

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

size_t FilterBuilder::FilterSize(size_t num_keys) const { return Plan(num_keys).bytes; }

double FilterBuilder::ExpectedFpr(size_t num_keys) const { return Plan(num_keys).expected_fpr; }

double FilterBuilder::FinishedFpr(size_t n) const {
  const FilterPlan own = Plan(n);
  return allow_small_form_ ? WithSmallForm(own, n, own.bytes).expected_fpr : own.expected_fpr;
}

void FilterBuilder::Finish(std::string* dst) {
  const size_t n = hashes_.size();
  const FilterPlan own = Plan(n);
  const bool small = allow_small_form_ &&
                     WithSmallForm(own, n, own.bytes).kind == FilterKind::kSmallSet &&
                     AppendSmallFilter(hashes_, own.bytes, dst);
  if (!small) Write(own, &hashes_, dst);
  hashes_.clear();
}

void FilterBuilder::Write(const FilterPlan& plan, std::vector<uint64_t>* hashes,
                          std::string* dst) const {
  WritePlannedFilter(plan, hashes, dst);
}

void FilterReader::MayMatchBatch(size_t n, const uint64_t* hashes,
                                 bool* results) const {
  for (size_t i = 0; i < n; ++i) results[i] = MayMatch(hashes[i]);
}

std::unique_ptr<FilterReader> NewFilterReader(const char* data, size_t size) {
  return WithFilterReader(data, size, ChecksumCheck::kVerify, [](const auto& reader) {
    using Reader = std::decay_t<decltype(reader)>;
    return std::unique_ptr<FilterReader>(new Reader(reader));
  });
}

bool FilterMayMatch(const char* data, size_t size, uint64_t hash) {
  return WithFilterReader(data, size, ChecksumCheck::kVerify,
                          [hash](const auto& reader) { return reader.MayMatch(hash); });
}

}  // namespace sstfilter
