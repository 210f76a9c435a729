// The bumped ribbon filter's registration (filter_kind.h says what a
// descriptor holds; kinds.h lists it) and its plan.

#pragma once

#include <string>
#include <vector>

#include "filters/burr_filter.h"
#include "filters/burr_reader.h"
#include "filters/filter_kind.h"
#include "filters/filter_plan.h"
#include "filters/filter_type.h"
#include "format/bits.h"
#include "format/trailer.h"

namespace sstfilter {

struct BurrDescriptor {
  static constexpr FilterTypeInfo kTypes[] = {
      {"burr", "sstfilter's bumped ribbon filter, solution columns filling the budget",
       kMinBurrBitsPerKey, kMaxBitsPerKey}};
  static constexpr FilterKind kKinds[] = {kBurrKind};

  // The more accurate of a bumped ribbon filter at `bits_per_key` (within
  // [kMinBurrBitsPerKey, kMaxBitsPerKey]) and what FuseDescriptor plans
  // there, which takes over at small key counts (a few thousand keys and
  // fewer, where the header, the last layers' free slots and whole blocks
  // cost more than fuse's or cuckoo's overhead); the bumped ribbon filter
  // on a tie. Its plan.bloom is the Bloom filter written should every
  // attempt fail. There is one variant. Defined in burr_shape.cc, as is:
  static FilterPlan Plan(int variant, size_t num_keys, double bits_per_key);
  // The bumped ribbon plan of `shape` (payload_bytes > 0) for `num_keys`
  // keys at `bits_per_key`, whatever the other kinds would give (Plan's
  // when it wins).
  static FilterPlan PlanOf(const BurrShape& shape, size_t num_keys, double bits_per_key);
  // False when every attempt fails, which has never been seen.
  static bool Write(const FilterPlan& plan, std::vector<uint64_t>* hashes, std::string* dst) {
    return AppendBurrFilter(plan.shape<BurrShape>().payload_bytes, hashes, dst);
  }
  // Every layer's banded rows and fingerprints (12 bytes a slot; the
  // layers together have about as many slots as keys, bounded here by
  // 1.1 n plus a whole block per layer) and a retry's remixed copy of the
  // keys (8 bytes a key; the sort's second array, as large, is released
  // before banding starts), and 64 KiB for the rest (the banding's window
  // tables, 12.5 KiB, and a bucket's list of pivots).
  static size_t WorkingBytes(const FilterPlan& /*plan*/, size_t num_keys) {
    const size_t slots = num_keys + num_keys / 10 + 64 * kBurrMaxLayers;
    return 12 * slots + 8 * num_keys + 64 * 1024;
  }

  using Layout = BurrLayout;
  // Checks the trailer's parameters, the header and the payload's size
  // against the shapes the builder writes; fills *layout on success.
  // Defined in burr_format.cc.
  static bool Parse(const Trailer& trailer, const char* payload, size_t payload_size,
                    Layout* layout);
  template <typename Fn>
  static auto Read(const Trailer& /*trailer*/, const char* /*payload*/, size_t /*payload_size*/,
                   const Layout& layout, Fn& fn) {
    if (CpuHasPopcnt()) return fn(BurrPopcntReader(layout));
    return fn(BurrReader(layout));
  }
};

inline constexpr FilterType kBurrType{kBurrKind, 0};

}  // namespace sstfilter
