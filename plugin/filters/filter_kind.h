// What a filter kind gives the registry (kinds.h), and the compile-time
// list the registry is made of.
//
// A kind is a descriptor: a struct of static members only, in the kind's
// own header (bloom_kind.h, cuckoo_kind.h, fuse_kind.h), registered by
// naming it once in RegisteredKinds. Everything that used to switch on
// kinds (names, bits/key ranges, planning, writing, parsing, the reader
// type) asks the descriptors in that list instead:
//
//   struct MyDescriptor {
//     // The names users choose it by ("sstfilter.<name>"), each with its
//     // bits/key range. FilterType{kKinds[0], i} is kTypes[i].
//     static constexpr FilterTypeInfo kTypes[] = {{"my", "...", 4.0, 100.0}};
//     // The trailer kind bytes it writes and reads (docs/format.md).
//     static constexpr FilterKind kKinds[] = {kMyKind};
//
//     // The plan for kTypes[variant] over num_keys distinct keys at
//     // bits_per_key (not validated: clamp as the kind's builder does).
//     // Its kind is one of kKinds, or another registered kind's (a
//     // budget too small for this kind may get a Bloom filter).
//     static FilterPlan Plan(int variant, size_t num_keys, double bits_per_key);
//     // Appends the filter `plan` (plan.kind in kKinds) describes over
//     // *hashes (no adjacent repeats; free to reorder or consume them):
//     // payload, then trailer, and returns true. A kind that can fail to
//     // build returns false instead, having appended nothing and left
//     // *hashes holding the hashes given; the planner then writes the
//     // plan's Bloom filter (plan.bloom), so a build never fails.
//     static bool Write(const FilterPlan& plan, std::vector<uint64_t>* hashes, std::string* dst);
//     // At least the most heap bytes Write holds at once for `plan` over
//     // num_keys hashes, beyond the hashes themselves and *dst (what a
//     // build charges to RocksDB's block cache; filter_working_test
//     // checks it against every allocation of a build).
//     static size_t WorkingBytes(const FilterPlan& plan, size_t num_keys);
//
//     // What the reader needs of bytes that passed Parse.
//     struct Layout { ... };
//     // Checks the trailer's parameters and the payload against the shapes
//     // the kind writes; fills *layout. Never reads outside the payload.
//     static bool Parse(const Trailer& trailer, const char* payload, size_t payload_size,
//                       Layout* layout);
//     // Returns fn(reader), reader of a final FilterReader type held by
//     // value (one of several where a parameter is best compiled in).
//     template <typename Fn>
//     static auto Read(const Trailer& trailer, const char* payload, size_t payload_size,
//                      const Layout& layout, Fn& fn);
//   };
//
// The planner and readers call these through templates over the list
// (reader_dispatch.h, planner.cc, filter_spec.cc): no virtual call, and a
// reader's MayMatch stays a direct call on its concrete type.

#pragma once

#include <cstddef>
#include <cstdint>

#include "format/trailer.h"

namespace sstfilter {

// A name users choose a filter by, and the bits/key it accepts.
struct FilterTypeInfo {
  const char* name;         // "bloom"; the policy id is "sstfilter.bloom"
  const char* description;  // one line, for tools' help
  double min_bits_per_key;
  double max_bits_per_key;
};

template <typename... Descriptors>
struct KindList {};

// Stands for descriptor D in a generic lambda: [](auto tag) { using D =
// typename decltype(tag)::type; ... }.
template <typename D>
struct KindTag {
  using type = D;
};

// Calls f(KindTag<D>{}) for each descriptor in order until one returns
// true; returns whether one did.
template <typename... Ds, typename F>
bool AnyKind(KindList<Ds...>, F&& f) {
  return (f(KindTag<Ds>{}) || ...);
}

// Whether descriptor D writes and reads trailer kind `kind`.
template <typename D>
constexpr bool KindIsOf(FilterKind kind) {
  for (FilterKind k : D::kKinds) {
    if (k == kind) return true;
  }
  return false;
}

namespace kind_internal {

template <typename D>
constexpr void TakeBytes(bool* taken, bool* ok) {
  for (FilterKind k : D::kKinds) {
    const auto b = static_cast<uint8_t>(k);
    if (taken[b]) *ok = false;
    taken[b] = true;
  }
}

}  // namespace kind_internal

// True if no two descriptors share a kind byte and none takes one of
// `reserved`.
template <typename... Ds>
constexpr bool KindBytesAreFree(KindList<Ds...>, FilterKind reserved_a, FilterKind reserved_b) {
  bool taken[256] = {};
  taken[static_cast<uint8_t>(reserved_a)] = true;
  taken[static_cast<uint8_t>(reserved_b)] = true;
  bool ok = true;
  (kind_internal::TakeBytes<Ds>(taken, &ok), ...);
  return ok;
}

}  // namespace sstfilter
