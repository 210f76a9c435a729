// The binary fuse filter's registration (filter_kind.h says what a
// descriptor holds; kinds.h lists it).

#pragma once

#include <string>
#include <vector>

#include "filters/filter_kind.h"
#include "filters/filter_plan.h"
#include "filters/filter_type.h"
#include "filters/fuse_filter.h"
#include "filters/fuse_reader.h"
#include "format/trailer.h"

namespace sstfilter {

struct FuseDescriptor {
  static constexpr FilterTypeInfo kTypes[] = {
      {"fuse",
       "sstfilter's binary fuse filter, fingerprint width and arity picked for the lowest "
       "FPR within the budget",
       kMinFuseBitsPerKey, kMaxBitsPerKey}};
  static constexpr FilterKind kKinds[] = {kFuseKind};

  // The most accurate of a fuse filter, a cuckoo filter (kAuto) and a
  // byte-sized Bloom filter at `bits_per_key` (within [kMinFuseBitsPerKey,
  // kMaxBitsPerKey]). FPRs under 2^-32 count as equal, and fuse wins ties:
  // a large Bloom filter of 100 bits/key beats 32-bit fingerprints, but its
  // 30 probes cost 30 cache misses. A fuse plan keeps that Bloom filter in
  // plan.bloom, written should every peeling fail. There is one variant.
  // Defined in fuse_builder.cc, as is:
  static FilterPlan Plan(int variant, size_t num_keys, double bits_per_key);
  // The fuse plan of `shape` for `num_keys` keys at `bits_per_key`,
  // whatever the other kinds would give (Plan's when fuse wins).
  static FilterPlan PlanOf(const FuseShape& shape, size_t num_keys, double bits_per_key);
  // False when every peeling fails (never seen at the sizes planned).
  static bool Write(const FilterPlan& plan, std::vector<uint64_t>* hashes, std::string* dst) {
    return AppendFuseFilter(plan.shape<FuseShape>(), hashes, dst);
  }
  // The peeler's 13 bytes a slot (a hash, a count, an order entry) and,
  // should peeling stall, the keys left in its core (up to 8 bytes a key);
  // that bounds the sort's second array of keys too, released before the
  // peeler starts.
  static size_t WorkingBytes(const FilterPlan& plan, size_t num_keys) {
    const size_t peeler = 13 * (static_cast<size_t>(plan.shape<FuseShape>().num_slots()) + 1);
    return peeler + 8 * num_keys + 64 * 1024;
  }

  using Layout = FuseLayout;
  // Checks the trailer's parameters, the header and the payload's size
  // against the shapes the builder writes; fills *layout on success.
  // Defined in fuse_kind.cc.
  static bool Parse(const Trailer& trailer, const char* payload, size_t payload_size,
                    Layout* layout);
  // The arity (3 or 4, checked by Parse) compiled in.
  template <typename Fn>
  static auto Read(const Trailer& trailer, const char* /*payload*/, size_t /*payload_size*/,
                   const Layout& layout, Fn& fn) {
    if (trailer.param_b == 3) return fn(FuseReader<3>(trailer.param_a, layout));
    return fn(FuseReader<4>(trailer.param_a, layout));
  }
};

inline constexpr FilterType kFuseType{kFuseKind, 0};

}  // namespace sstfilter
