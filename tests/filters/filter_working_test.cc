// PlanWorkingBytes (planner.h) against what builds really hold: every
// operator new of this test program is counted, and for each registered
// type, several sizes and budgets, the most heap bytes a Finish held at
// once beyond the hashes and the reserved output must not exceed the
// plan's working bytes. RocksDB's block cache is charged with that
// figure (rocksdb_adapter/construction_charge.h), so an estimate below the
// truth would let a build use memory the cache was told it could not.

#include <gtest/gtest.h>
#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "filters/filter_spec.h"
#include "filters/planner.h"
#include "filters/test_util.h"
#include "format/hash.h"

namespace {

std::atomic<size_t> g_live{0};
std::atomic<size_t> g_peak{0};

void* Counted(size_t size, size_t align) {
  void* p = align <= alignof(std::max_align_t)
                ? std::malloc(size == 0 ? 1 : size)
                : std::aligned_alloc(align, (size + align - 1) / align * align);
  if (p == nullptr) throw std::bad_alloc();
  const size_t live = g_live += malloc_usable_size(p);
  size_t peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
  return p;
}

void Uncounted(void* p) {
  if (p == nullptr) return;
  g_live -= malloc_usable_size(p);
  std::free(p);
}

}  // namespace

void* operator new(size_t size) { return Counted(size, 0); }
void* operator new[](size_t size) { return Counted(size, 0); }
void* operator new(size_t size, std::align_val_t a) { return Counted(size, static_cast<size_t>(a)); }
void* operator new[](size_t size, std::align_val_t a) { return Counted(size, static_cast<size_t>(a)); }
void operator delete(void* p) noexcept { Uncounted(p); }
void operator delete[](void* p) noexcept { Uncounted(p); }
void operator delete(void* p, size_t) noexcept { Uncounted(p); }
void operator delete[](void* p, size_t) noexcept { Uncounted(p); }
void operator delete(void* p, std::align_val_t) noexcept { Uncounted(p); }
void operator delete[](void* p, std::align_val_t) noexcept { Uncounted(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { Uncounted(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { Uncounted(p); }

namespace sstfilter {
namespace {

TEST(FilterWorkingTest, EveryBuildStaysWithinItsPlansWorkingBytes) {
  const std::vector<size_t> sizes = {0, 1, 40, 700, 3000, 20000, 150000, 600000};
  const std::vector<double> budgets = {4, 7.3, 10, 16, 24};
  for (FilterType type : AllFilterTypes()) {
    for (double bits : budgets) {
      if (bits < MinBitsPerKey(type)) continue;
      for (size_t n : sizes) {
        SCOPED_TRACE(std::string(FilterTypeName(type)) + " " + std::to_string(bits) +
                     " bits/key, " + std::to_string(n) + " keys");
        auto builder = NewFilterBuilder(FilterSpec{type, bits});
        uint64_t state = n * 31 + static_cast<uint64_t>(bits * 10);
        for (size_t i = 0; i < n; ++i) builder->AddHash(test::SplitMix(&state));
        const FilterPlan plan = builder->FinishingPlan();
        const size_t working = PlanWorkingBytes(plan, n);
        std::string filter;
        filter.reserve(plan.bytes + 64);  // the output is not working memory
        const size_t before = g_live.load();
        g_peak = before;
        builder->Finish(&filter);
        const size_t held = g_peak.load() - before;
        EXPECT_LE(held, working) << "kind " << static_cast<int>(plan.kind);
        EXPECT_LE(filter.size(), plan.bytes + 64);
      }
    }
  }
}

}  // namespace
}  // namespace sstfilter
