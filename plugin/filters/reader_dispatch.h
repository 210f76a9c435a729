// Filter bytes -> the concrete reader type for them, decided in one place.
//
// WithFilterReader parses and checks the bytes once and hands a reader of
// the exact (final) type to a callback, so that callers can keep it by
// value and probe without a virtual call: NewFilterReader (filter.cc),
// FilterMayMatch, and the RocksDB adapter, which wraps each type in its
// own FilterBitsReader. Small filters get SmallReader; semi-sorted cuckoo
// filters with f = 8..24 get a reader whose bucket codec has the width
// compiled in; fuse filters one with the arity compiled in.

#pragma once

#include <algorithm>

#include "filters/bloom.h"
#include "filters/burr_reader.h"
#include "filters/cuckoo_reader.h"
#include "filters/filter.h"
#include "filters/fuse_reader.h"
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

// What a reader needs of filter bytes that passed every check.
struct ParsedFilter {
  FilterKind kind = FilterKind::kBloom;
  size_t payload_size = 0;
  int param_a = 0;
  int param_b = 0;
  CuckooLayout cuckoo;  // cuckoo kinds only
  FuseLayout fuse;      // fuse only
  SmallLayout small;    // small form only
  BurrLayout burr;      // bumped ribbon only
};

// The one place that decides whether filter bytes are trusted. A version-1
// filter (trailer marker, version and kind, then the kind's parameters and
// shape) is trusted if its checksum matches, or `check` says the engine
// verified the bytes. Anything else is trusted only as a small filter
// (ParseSmallFilter: its check, always verified, its layout and its
// bitmap's count of ones): no small filter passes the version-1 checks,
// so the two never overlap.
bool ParseFilter(const char* data, size_t size, ParsedFilter* f,
                 ChecksumCheck check = ChecksumCheck::kVerify);

// The version-1 part of ParseFilter alone.
bool ParseVersion1Filter(const char* data, size_t size, ParsedFilter* f,
                         ChecksumCheck check);

namespace dispatch_internal {

// fn(CuckooReader<FixedSemiSortedCodec<f>>) if First <= f <= 17,
// fn(CuckooReader<FixedWideSemiSortedCodec<f>>) if 18 <= f <= Last, else
// fn(CuckooReader<SemiSortedBucketCodec>).
template <int First, int Last, typename Fn>
auto WithSemiSortedReader(const char* data, const ParsedFilter& f, Fn& fn) {
  if constexpr (First > Last) {
    return fn(CuckooReader<SemiSortedBucketCodec>(f.param_a, data, f.cuckoo));
  } else {
    if (f.param_a == First) {
      if constexpr (First <= 17) {
        return fn(CuckooReader<FixedSemiSortedCodec<First>>(First, data, f.cuckoo));
      } else {
        return fn(CuckooReader<FixedWideSemiSortedCodec<First>>(First, data, f.cuckoo));
      }
    }
    return WithSemiSortedReader<First + 1, Last>(data, f, fn);
  }
}

}  // namespace dispatch_internal

// Returns fn(reader), where reader is a const reference to a reader of
// `size` bytes at `data` of its concrete type: AlwaysMatchReader when the
// bytes fail ParseFilter. fn must return the same type for every reader
// type. The bytes must outlive any copy fn keeps.
template <typename Fn>
auto WithFilterReader(const char* data, size_t size, ChecksumCheck check, Fn&& fn) {
  ParsedFilter f;
  if (ParseFilter(data, size, &f, check)) {
    switch (f.kind) {
      case FilterKind::kBloom:
        return fn(BloomReader(data, f.payload_size, f.param_a));
      case FilterKind::kCuckoo:
        return fn(CuckooReader<PlainBucketCodec>(f.param_a, data, f.cuckoo));
      case FilterKind::kCuckooSemiSorted:
        return dispatch_internal::WithSemiSortedReader<8, 24>(data, f, fn);
      case FilterKind::kFuse:
        if (f.param_b == 3) return fn(FuseReader<3>(f.param_a, f.fuse));
        return fn(FuseReader<4>(f.param_a, f.fuse));
      case FilterKind::kSmallSet:
        return fn(SmallReader(data, size, f.small));
      case FilterKind::kBurr:
        return fn(BurrReader(f.burr));
    }
  }
  return fn(AlwaysMatchReader());
}

}  // namespace sstfilter
