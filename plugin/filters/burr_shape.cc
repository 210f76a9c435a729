// The bumped ribbon filter's plan: the bytes a budget buys, the FPR to
// expect of them, and where another kind does better.

#include <algorithm>
#include <cmath>

#include "filters/bits_per_key.h"
#include "filters/burr_banding.h"
#include "filters/burr_filter.h"
#include "filters/burr_hashing.h"
#include "filters/burr_kind.h"
#include "filters/filter_plan.h"
#include "filters/fuse_kind.h"
#include "format/trailer.h"

namespace sstfilter {

BurrShape ChooseBurrShape(size_t num_keys, double bits_per_key) {
  BurrShape shape;
  if (num_keys == 0 || num_keys > kMaxBurrKeys) return shape;
  const double bits = ClampBitsPerKey(bits_per_key, kMinBurrBitsPerKey, kMaxBitsPerKey);
  const double budget = std::floor(static_cast<double>(num_keys) * bits / 8);
  if (budget <= static_cast<double>(kTrailerSize + kBurrHeaderSize)) return shape;
  // The layers a build is expected to make.
  const BurrTuning tuning;
  size_t fixed = kBurrHeaderSize;
  uint64_t blocks = 0;
  for (size_t keys = num_keys; keys > 0;) {
    const uint64_t slots = BurrLayerSlots(keys, tuning);
    fixed += kBurrLayerHeaderSize + ((slots - 63 + kBurrBucketSize - 1) / kBurrBucketSize + 3) / 4;
    blocks += slots / 64;
    // Small layers bump less: their bands are short and rarely crowded
    // (a 900-key layer bumps none in most builds, a 2,400-key one 3%).
    const double share = kBurrExpectedBumped * std::min(1.0, static_cast<double>(keys) / 2048);
    keys = keys <= 56 ? 0 : static_cast<size_t>(std::round(static_cast<double>(keys) * share));
  }
  const size_t payload = static_cast<size_t>(budget) - kTrailerSize;
  if (payload < fixed + 8 * blocks) return shape;
  const uint64_t words = (payload - fixed) / 8;
  // Past 32 columns everywhere the budget buys nothing more: the payload
  // stops there.
  const uint64_t most = blocks * kMaxBurrColumns;
  shape.payload_bytes = words >= most ? fixed + 8 * most : payload;
  shape.columns = static_cast<int>(std::min<uint64_t>(words / blocks, kMaxBurrColumns - 1));
  const uint64_t wide = std::min<uint64_t>(words - blocks * static_cast<uint64_t>(shape.columns), blocks);
  shape.wide_share = static_cast<double>(wide) / static_cast<double>(blocks);
  shape.expected_fpr = (1 - shape.wide_share) * std::ldexp(1.0, -shape.columns) +
                       shape.wide_share * std::ldexp(1.0, -shape.columns - 1);
  return shape;
}

FilterPlan BurrDescriptor::Plan(int /*variant*/, size_t num_keys, double bits_per_key) {
  bits_per_key = ClampBitsPerKey(bits_per_key, kMinBurrBitsPerKey, kMaxBitsPerKey);
  const FilterPlan other = FuseDescriptor::Plan(0, num_keys, bits_per_key);
  const BurrShape shape = ChooseBurrShape(num_keys, bits_per_key);
  const double floor = std::ldexp(1.0, -kMaxBurrColumns);
  if (shape.payload_bytes == 0 ||
      std::max(floor, shape.expected_fpr) > std::max(floor, other.expected_fpr)) {
    return other;
  }
  return PlanOf(shape, num_keys, bits_per_key);
}

FilterPlan BurrDescriptor::PlanOf(const BurrShape& shape, size_t num_keys, double bits_per_key) {
  FilterPlan plan;
  plan.kind = kBurrKind;
  plan.set_shape(shape);
  plan.bytes = shape.payload_bytes + kTrailerSize;
  plan.expected_fpr = shape.expected_fpr;
  plan.bloom = PlanBloom(num_keys, bits_per_key, BloomSizing::kExactBytes).bloom;
  return plan;
}

}  // namespace sstfilter
