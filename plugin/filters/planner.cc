#include "filters/planner.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "filters/filter_spec.h"
#include "filters/kinds.h"
#include "filters/small_filter.h"

namespace sstfilter {
namespace {

// LevelDB budgets' bits/key are rounded down to a multiple of 1/16: at most
// one payload byte per 128 keys.
constexpr double kBitsPerKeySteps = 16;

double BitsPerKeyOfBytes(size_t payload_bytes, size_t num_keys) {
  return std::floor(8.0 * static_cast<double>(payload_bytes) / static_cast<double>(num_keys) *
                    kBitsPerKeySteps) /
         kBitsPerKeySteps;
}

}  // namespace

FilterPlan PlanFilter(const FilterSpec& spec, size_t num_keys) {
  FilterPlan plan;
  const bool planned = AnyKind(RegisteredKinds{}, [&](auto tag) {
    using D = typename decltype(tag)::type;
    const int variant = spec.type.variant();
    if (spec.type.first_kind() != D::kKinds[0] || variant >= static_cast<int>(std::size(D::kTypes))) {
      return false;
    }
    plan = D::Plan(variant, num_keys, spec.bits_per_key);
    return true;
  });
  return planned ? plan : PlanBloom(num_keys, spec.bits_per_key, BloomSizing::kWholeLines);
}

FilterPlan WithSmallForm(const FilterPlan& own, size_t num_keys, size_t bytes) {
  if (num_keys == 0 || num_keys > kMaxSmallKeys) return own;
  const double fpr = SmallExpectedFpr(num_keys, bytes);
  if (!(fpr < own.expected_fpr)) return own;
  FilterPlan plan;
  plan.kind = kSmallFormKind;
  plan.bytes = bytes;
  plan.expected_fpr = fpr;
  return plan;
}

FilterPlan PlanInBytes(FilterType type, size_t num_keys, size_t budget_bytes, bool small_form) {
  const size_t payload = budget_bytes > kTrailerSize ? budget_bytes - kTrailerSize : 0;
  if (num_keys == 0) return PlanBloom(0, kMaxBitsPerKey, BloomSizing::kExactBytes);
  const double bits_per_key = BitsPerKeyOfBytes(payload, num_keys);
  // Below kMinBitsPerKey the budget cannot be met: the minimum (leveldb.h).
  FilterPlan best = PlanBloom(num_keys, std::clamp(bits_per_key, kMinBitsPerKey, kMaxBitsPerKey),
                              BloomSizing::kExactBytes);
  const double own_bits = std::min(kMaxBitsPerKey, bits_per_key);
  if (type != FilterType::kBloom && own_bits >= MinBitsPerKey(type)) {
    const FilterPlan own = PlanFilter(FilterSpec{type, own_bits}, num_keys);
    // Tiny key counts get the smallest cuckoo table that holds them, which
    // may exceed the budget.
    if (own.bytes <= budget_bytes && own.expected_fpr < best.expected_fpr) best = own;
  }
  return small_form ? WithSmallForm(best, num_keys, budget_bytes) : best;
}

double ExpectedFprAtScale(const FilterSpec& spec) {
  if (spec.type == FilterType::kBloom) {
    return BloomExpectedFpr(spec.bits_per_key, BloomProbes(spec.bits_per_key));
  }
  return PlanFilter(spec, kScaleKeys).expected_fpr;
}

bool PlanAtScale(FilterType type, double bits_per_key, FilterSpec* spec, double* fpr) {
  bool found = false;
  for (FilterType t : {type, FilterType::kBloom}) {
    const FilterSpec candidate{t, bits_per_key};
    if (!ValidateFilterSpec(candidate).empty()) continue;
    const double f = ExpectedFprAtScale(candidate);
    if (!found || f < *fpr) {
      *spec = candidate;
      *fpr = f;
    }
    found = true;
  }
  return found;
}

void WritePlannedFilter(const FilterPlan& plan, std::vector<uint64_t>* hashes, std::string* dst) {
  const bool written = AnyKind(RegisteredKinds{}, [&](auto tag) {
    using D = typename decltype(tag)::type;
    if (!KindIsOf<D>(plan.kind)) return false;
    if (!D::Write(plan, hashes, dst)) WriteFailedBuildFallback(plan, *hashes, dst);
    return true;
  });
  if (written) return;
  // A small-form plan is not this function's (planner.h); should a caller
  // pass one all the same, a correct filter of the planned bytes, never a
  // miss.
  if (plan.kind == kSmallFormKind && AppendSmallFilter(*hashes, plan.bytes, dst)) return;
  const double bits = 8.0 * static_cast<double>(plan.bytes) /
                      static_cast<double>(std::max<size_t>(hashes->size(), 1));
  AppendBloomFilter(BloomShapeFor(hashes->size(), bits, BloomSizing::kExactBytes), *hashes, dst);
}

void WriteFailedBuildFallback(const FilterPlan& plan, const std::vector<uint64_t>& hashes,
                              std::string* dst) {
  AppendBloomFilter(plan.bloom, hashes, dst);
}

size_t PlanWorkingBytes(const FilterPlan& plan, size_t num_keys) {
  size_t bytes = 0;
  const bool known = AnyKind(RegisteredKinds{}, [&](auto tag) {
    using D = typename decltype(tag)::type;
    if (!KindIsOf<D>(plan.kind)) return false;
    bytes = D::WorkingBytes(plan, num_keys);
    return true;
  });
  // The small form, or WritePlannedFilter's Bloom filter of last resort
  // (none: written in place).
  return known ? bytes : 8 * num_keys + 64;
}

}  // namespace sstfilter
