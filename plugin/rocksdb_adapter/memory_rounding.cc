#include "rocksdb_adapter/memory_rounding.h"

#include <algorithm>
#include <cmath>
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
  return usable < bytes ? bytes : usable;
}

// The largest allocation size under `bytes` whose class ends below
// `bytes`, or 0 if none from bytes / 2 does: classes grow with size, so
// the search over requests in [bytes / 2, bytes) is monotone.
size_t ClassBelow(size_t bytes) {
  size_t lo = bytes / 2, hi = bytes;  // UsableSize(hi) >= bytes
  if (lo == 0 || UsableSize(lo) >= bytes) return 0;
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    (UsableSize(mid) < bytes ? lo : hi) = mid;
  }
  return UsableSize(lo);
}
#endif

// The largest plan of spec's type within `bytes`, from its bits/key as the
// kind sizes it (so a cache-local Bloom filter keeps whole lines); or
// `fallback` if that plan is of another kind than fallback's.
FilterPlan SameKindIn(const FilterSpec& spec, const FilterPlan& fallback, size_t num_keys,
                      size_t bytes) {
  // Plans grow with bits/key: bisect for the most bits that fit, from a
  // bracket around bytes' own bits/key.
  const double lowest = MinBitsPerKey(spec.type), highest = MaxBitsPerKey(spec.type);
  const double own = 8.0 * static_cast<double>(bytes) / static_cast<double>(num_keys);
  auto plan = [&](double bits) { return PlanFilter(FilterSpec{spec.type, bits}, num_keys); };
  double lo = std::max(lowest, own * 0.9), hi = std::min(highest, own * 1.1);
  if (!(lo < hi)) return fallback;
  FilterPlan best = plan(lo);
  if (best.bytes > bytes) return fallback;
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
  return best.kind == fallback.kind ? best : fallback;
}

// A filter's weight in the balance: its FPR times its keys (a filter over
// more keys covers more of the key space, so answers more lookups), in
// units of 2^-20.
int64_t Weighted(double fpr, size_t num_keys) {
  return static_cast<int64_t>(std::ldexp(fpr * static_cast<double>(num_keys), 20));
}

}  // namespace

bool MemoryRounding::Supported() {
#if SSTFILTER_USABLE_SIZE
  return true;
#else
  return false;
#endif
}

FilterPlan MemoryRounding::Round(const FilterPlan& planned, const FilterSpec& spec,
                                 size_t num_keys, size_t extra_bytes) {
#if SSTFILTER_USABLE_SIZE
  if (num_keys == 0 || planned.kind == kSmallFormKind) return planned;
  const size_t total = planned.bytes + extra_bytes;
  const size_t up_total = UsableSize(total);
  const size_t down_total = ClassBelow(total);
  const FilterPlan up = up_total > total
                            ? SameKindIn(spec, planned, num_keys, up_total - extra_bytes)
                            : planned;
  const FilterPlan down = down_total > extra_bytes
                              ? SameKindIn(spec, planned, num_keys, down_total - extra_bytes)
                              : planned;
  const int64_t target = Weighted(planned.expected_fpr, num_keys);
  const int64_t cost = Weighted(down.expected_fpr, num_keys) - target;  // of rounding down
  int64_t balance = balance_.load(std::memory_order_relaxed);
  if (down.bytes < planned.bytes) {
    while (balance >= cost) {
      if (balance_.compare_exchange_weak(balance, balance - cost)) return down;
    }
  }
  if (up.bytes > planned.bytes) {
    balance_.fetch_add(target - Weighted(up.expected_fpr, num_keys), std::memory_order_relaxed);
    return up;
  }
  return planned;
#else
  (void)spec;
  (void)num_keys;
  (void)extra_bytes;
  return planned;
#endif
}

}  // namespace sstfilter
