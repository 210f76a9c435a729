#include "filters/filter.h"

#include <algorithm>
#include <type_traits>

#include "filters/planner.h"
#include "filters/reader_dispatch.h"
#include "filters/small_filter.h"
#include "format/trailer.h"

namespace sstfilter {

bool ParseFilter(const char* data, size_t size, ParsedFilter* f, ChecksumCheck check) {
  // Trusted: any reader but the one for doubtful bytes.
  auto trusted = [](const auto& reader) {
    return !std::is_same<std::decay_t<decltype(reader)>, AlwaysMatchReader>::value;
  };
  return dispatch_internal::WithParsedFilter(data, size, check, f, trusted);
}

bool ParseVersion1Filter(const char* data, size_t size, ParsedFilter* f,
                         ChecksumCheck check) {
  Trailer trailer;
  if (!ParseTrailer(data, size, &trailer, &f->payload_size, check)) return false;
  f->kind = trailer.kind;
  f->param_a = trailer.param_a;
  f->param_b = trailer.param_b;
  auto parsed = [](const auto&) { return true; };
  auto not_version1 = [] { return false; };
  // ParseTrailer has checked the checksum if `check` asks for it.
  return dispatch_internal::WithKindReader<bool>(RegisteredKinds{}, trailer, data, size,
                                                 f->payload_size, ChecksumCheck::kEngineVerified,
                                                 parsed, not_version1);
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

FilterPlan FilterBuilder::FinishingPlan() const {
  const size_t n = hashes_.size();
  const FilterPlan own = Plan(n);
  return allow_small_form_ ? WithSmallForm(own, n, own.bytes) : own;
}

void FilterBuilder::FinishWith(const FilterPlan& plan, std::string* dst) {
  WritePlannedFilter(plan, &hashes_, dst);
  hashes_.clear();
}

void FilterBuilder::Finish(std::string* dst) {
  const FilterPlan plan = FinishingPlan();
  const bool small = plan.kind == kSmallFormKind && AppendSmallFilter(hashes_, plan.bytes, dst);
  if (!small) Write(plan.kind == kSmallFormKind ? Plan(hashes_.size()) : plan, &hashes_, dst);
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
