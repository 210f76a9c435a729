// Filter bytes -> the concrete reader type for them, decided in one place.
//
// WithFilterReader parses and checks the bytes once and hands a reader of
// the exact (final) type to a callback, so that callers can keep it by
// value and probe without a virtual call: NewFilterReader and
// FilterMayMatch (filter.h, defined in reader_dispatch.cc), and the
// RocksDB adapter, which wraps each type in its own FilterBitsReader.
// The version-1 kinds are the registry's (kinds.h):
// the kind whose descriptor claims the trailer's kind byte parses the
// payload and picks its reader type (filter_kind.h). Small filters get
// SmallReader.

#pragma once

#include <algorithm>

#include "filters/filter.h"
#include "filters/filter_kind.h"
#include "filters/kinds.h"
#include "filters/small_filter.h"
#include "format/trailer.h"

namespace sstfilter {

// The reader for anything doubtful: every key may match.
class AlwaysMatchReader final : public FilterReader {
 public:
  bool MayMatch(uint64_t) const override { return true; }
  void MayMatchBatch(size_t n, const uint64_t*, bool* results) const override {
    std::fill(results, results + n, true);
  }
};

// What every reader was made from, of filter bytes that passed every check.
struct ParsedFilter {
  FilterKind kind{};  // the trailer's, or kSmallFormKind
  size_t payload_size = 0;
  int param_a = 0;
  int param_b = 0;
  SmallLayout small;  // small form only
};

// The one place that decides whether filter bytes are trusted. A version-1
// filter (trailer marker and version, a registered kind byte, then the
// kind's parameters and shape) is trusted if its checksum matches, or
// `check` says the engine verified the bytes. Anything else is trusted
// only as a small filter (ParseSmallFilter: its check, always verified,
// its layout and its bitmap's count of ones): no small filter passes the
// version-1 checks, so the two never overlap.
bool ParseFilter(const char* data, size_t size, ParsedFilter* f,
                 ChecksumCheck check = ChecksumCheck::kVerify);

// The version-1 part of ParseFilter alone.
bool ParseVersion1Filter(const char* data, size_t size, ParsedFilter* f,
                         ChecksumCheck check);

namespace dispatch_internal {

// fn(the reader of the first descriptor in the list that claims
// trailer.kind), if its Parse accepts the payload and the checksum is as
// `check` requires (else fn(AlwaysMatchReader)); not_version1() if no
// descriptor claims the kind or Parse refuses the payload.
template <typename R, typename Fn, typename NotVersion1>
R WithKindReader(KindList<>, const Trailer&, const char*, size_t, size_t, ChecksumCheck, Fn&,
                 NotVersion1& not_version1) {
  return not_version1();
}

template <typename R, typename D, typename... Rest, typename Fn, typename NotVersion1>
R WithKindReader(KindList<D, Rest...>, const Trailer& trailer, const char* data, size_t size,
                 size_t payload_size, ChecksumCheck check, Fn& fn, NotVersion1& not_version1) {
  if (!KindIsOf<D>(trailer.kind)) {
    return WithKindReader<R>(KindList<Rest...>{}, trailer, data, size, payload_size, check, fn,
                             not_version1);
  }
  typename D::Layout layout;
  if (!D::Parse(trailer, data, payload_size, &layout)) return not_version1();
  // Version 1 by its structure, intact or not: the small-form builder
  // never writes bytes that pass it.
  if (check == ChecksumCheck::kVerify && !TrailerChecksumMatches(data, size)) {
    return fn(AlwaysMatchReader());
  }
  return D::Read(trailer, data, payload_size, layout, fn);
}

// WithFilterReader, telling *f what it found (ParseFilter).
template <typename Fn>
auto WithParsedFilter(const char* data, size_t size, ChecksumCheck check, ParsedFilter* f, Fn& fn) {
  using R = decltype(fn(AlwaysMatchReader()));
  auto small_form = [&]() -> R {
    if (!ParseSmallFilter(data, size, &f->small)) return fn(AlwaysMatchReader());
    f->kind = kSmallFormKind;
    f->payload_size = size - SmallTrailerSize(f->small.num_keys);
    f->param_a = f->param_b = 0;
    return fn(SmallReader(data, size, f->small));
  };
  Trailer trailer;
  if (!ParseTrailer(data, size, &trailer, &f->payload_size, ChecksumCheck::kEngineVerified)) {
    return small_form();
  }
  f->kind = trailer.kind;
  f->param_a = trailer.param_a;
  f->param_b = trailer.param_b;
  return WithKindReader<R>(RegisteredKinds{}, trailer, data, size, f->payload_size, check, fn,
                           small_form);
}

}  // namespace dispatch_internal

// Returns fn(reader), where reader is a const reference to a reader of
// `size` bytes at `data` of its concrete type: AlwaysMatchReader when the
// bytes fail ParseFilter. fn must return the same type for every reader
// type. The bytes must outlive any copy fn keeps.
template <typename Fn>
auto WithFilterReader(const char* data, size_t size, ChecksumCheck check, Fn&& fn) {
  ParsedFilter f;
  return dispatch_internal::WithParsedFilter(data, size, check, &f, fn);
}

}  // namespace sstfilter
