// PlanWorkingBytes (planner.h) against what builds really hold: every
// allocation of this test program is counted (util/heap_counter.h, malloc
// and calloc as much as operator new), and for each registered
// type, several sizes and budgets, the most heap bytes a Finish held at
// once beyond the hashes and the reserved output must not exceed the
// plan's working bytes. RocksDB's block cache is charged with that
// figure (rocksdb_adapter/construction_charge.h), so an estimate below the
// truth would let a build use memory the cache was told it could not.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "filters/filter_spec.h"
#include "filters/planner.h"
#include "filters/test_util.h"
#include "format/hash.h"
#include "util/heap_counter.h"

namespace sstfilter {
namespace {

TEST(FilterWorkingTest, EveryBuildStaysWithinItsPlansWorkingBytes) {
  if (!test::HeapCounted()) GTEST_SKIP() << "the sanitizer owns the allocator";
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
        const size_t before = test::HeapLive();
        test::ResetHeapPeak();
        builder->Finish(&filter);
        const size_t held = test::HeapPeak() - before;
        EXPECT_LE(held, working) << "kind " << static_cast<int>(plan.kind);
        EXPECT_LE(filter.size(), plan.bytes + 64);
      }
    }
  }
}

}  // namespace
}  // namespace sstfilter
