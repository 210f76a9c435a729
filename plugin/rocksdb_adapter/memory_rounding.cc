#include "rocksdb_adapter/memory_rounding.h"

#include <algorithm>
#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#define SSTFILTER_USABLE_SIZE 1
#endif

#include "filters/planner.h"
#include "filters/small_filter.h"

namespace sstfilter {

namespace {

#if SSTFILTER_USABLE_SIZE
// The bytes an allocation of `bytes` really gets.
size_t UsableSize(size_t bytes) {
  void* p = std::malloc(bytes);
  if (p == nullptr) return bytes;
  const size_t usable = malloc_usable_size(p);
  std::free(p);
  return std::max(usable, bytes);
}
#endif

// The largest plan of spec's type within `bytes`, from its bits/key as the
// kind sizes it (so a cache-local Bloom filter keeps whole lines); or
// `fallback` if that plan is of another kind than fallback's or no larger.
FilterPlan LargestOfKindWithin(const FilterSpec& spec, const FilterPlan& fallback,
                               size_t num_keys, size_t bytes) {
  // Plans grow with bits/key: bisect for the most bits that fit, from the
  // planned bits/key up to bytes' own and a little over.
  const double own = 8.0 * static_cast<double>(bytes) / static_cast<double>(num_keys);
  auto plan = [&](double bits) { return PlanFilter(FilterSpec{spec.type, bits}, num_keys); };
  double lo = spec.bits_per_key, hi = std::min(MaxBitsPerKey(spec.type), own * 1.05);
  if (!(lo < hi)) return fallback;
  FilterPlan best = fallback;
  const FilterPlan top = plan(hi);
  if (top.bytes <= bytes) {
    best = top;
  } else {
    for (int i = 0; i < 24; ++i) {
      const double mid = (lo + hi) / 2;
      const FilterPlan p = plan(mid);
      if (p.bytes <= bytes) {
        lo = mid;
        best = p;
      } else {
        hi = mid;
      }
    }
  }
  return best.kind == fallback.kind && best.bytes > fallback.bytes ? best : fallback;
}

}  // namespace

bool AllocationClassesKnown() {
#if SSTFILTER_USABLE_SIZE
  return true;
#else
  return false;
#endif
}

FilterPlan FillAllocation(const FilterPlan& planned, const FilterSpec& spec, size_t num_keys,
                          size_t extra_bytes) {
#if SSTFILTER_USABLE_SIZE
  if (num_keys == 0 || planned.kind == kSmallFormKind) return planned;
  const size_t total = planned.bytes + extra_bytes + kBlockTrailerBytes;
  const size_t usable = UsableSize(total);
  if (usable == total) return planned;
  return LargestOfKindWithin(spec, planned, num_keys, usable - extra_bytes - kBlockTrailerBytes);
#else
  (void)spec;
  (void)num_keys;
  (void)extra_bytes;
  return planned;
#endif
}

}  // namespace sstfilter
