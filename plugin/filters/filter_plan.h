// What the planner (planner.h) decided for one filter: its kind, size,
// expected FPR and shape. A plain value, the same for every kind: the
// kind's own shape is kept as bytes that only that kind reads back.
// Also the Bloom plan (PlanBloom), which every kind may fall back to.

#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "filters/bloom.h"
#include "format/trailer.h"

namespace sstfilter {

struct FilterPlan {
  // Largest shape a kind may keep in a plan (set_shape refuses to compile
  // a larger one).
  static constexpr size_t kMaxShapeBytes = 64;

  // What the trailer will say; kSmallFormKind for the small form.
  FilterKind kind = kBloomKind;
  // Bytes written, trailer included. For cuckoo, unless placement needs a
  // stash larger than planned or a larger table (rare: a few percent more).
  size_t bytes = 0;
  double expected_fpr = 0;
  // The Bloom filter of the plan: for kBloomKind the filter itself; for a
  // kind that can fail to build (fuse), the filter written instead.
  // Default (no bytes) where neither applies.
  BloomShape bloom;

  // The planned kind's own shape (CuckooShape, FuseShape, ...): set by
  // the kind's plan, read by its writer. Shape must be trivially
  // copyable; shape<S>() of a plan whose shape is not an S is S{}.
  template <typename Shape>
  void set_shape(const Shape& shape) {
    static_assert(std::is_trivially_copyable<Shape>::value, "a plan's shape is kept as bytes");
    static_assert(sizeof(Shape) <= kMaxShapeBytes, "raise FilterPlan::kMaxShapeBytes");
    std::memcpy(shape_, &shape, sizeof(Shape));
    shape_tag_ = &kShapeTag<Shape>;
  }
  template <typename Shape>
  Shape shape() const {
    Shape s{};
    if (shape_tag_ == &kShapeTag<Shape>) std::memcpy(&s, shape_, sizeof(Shape));
    return s;
  }

 private:
  // One address per shape type: what set_shape stored (no RTTI).
  template <typename Shape>
  static constexpr char kShapeTag = 0;

  alignas(8) unsigned char shape_[kMaxShapeBytes] = {};
  const char* shape_tag_ = nullptr;
};

// The plan of a cache-local Bloom filter of `bits_per_key` (taken as
// ClampBitsPerKey does, within [kMinBitsPerKey, kMaxBitsPerKey]): the
// Bloom kind's own, and the one every other kind's plan falls back to, so
// it sits here, below the kinds, rather than in the planner above them.
inline FilterPlan PlanBloom(size_t num_keys, double bits_per_key, BloomSizing sizing) {
  FilterPlan plan;
  plan.kind = kBloomKind;
  plan.bloom = BloomShapeFor(num_keys, bits_per_key, sizing);
  plan.bytes = plan.bloom.payload_bytes + kTrailerSize;
  plan.expected_fpr = BloomShapeFpr(plan.bloom, num_keys);
  return plan;
}

}  // namespace sstfilter
