// optimize_filters_for_memory (rocksdb_adapter/memory_rounding.h): with the
// option, filters grow to fill their allocation, never shrink, and stay a
// function of their keys; without it, the planned sizes. Every key is
// found whatever the size.

#include <gtest/gtest.h>
#include <malloc.h>
#include <rocksdb/table.h>
#include <sstfilter/sstfilter.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "filters/planner.h"
#include "filters/reader_dispatch.h"
#include "rocksdb_adapter/memory_rounding.h"
#include "rocksdb_adapter/rocksdb_internal.h"
#include "rocksdb_adapter/slice_hash.h"
#include "util/db_test_util.h"

namespace sstfilter {
namespace {

size_t UsableSize(size_t bytes) {
  void* p = std::malloc(bytes);
  const size_t usable = malloc_usable_size(p);
  std::free(p);
  return usable;
}

struct Built {
  size_t filters = 0, rounded = 0, up = 0, down = 0;
  double planned_fp = 0, written_fp = 0;  // expected, weighted by keys
  size_t planned_bytes = 0, written_bytes = 0;
};

// Builds filters of 3,000 to 60,000 keys with `name` at 10 bits/key; a
// filter resized ends at most `slack` bytes short of its allocation.
Built BuildFilters(const char* name, bool optimize, size_t slack = 0) {
  std::shared_ptr<const rocksdb::FilterPolicy> policy;
  EXPECT_TRUE(NewFilterPolicy(name, 10, &policy).ok());
  FilterType type;
  EXPECT_TRUE(FilterTypeFromName(name, &type));
  rocksdb::BlockBasedTableOptions table;
  table.optimize_filters_for_memory = optimize;
  Built b;
  for (int n = 3000; n <= 60000; n += 1231) {
    std::unique_ptr<rocksdb::FilterBitsBuilder> builder(
        policy->GetBuilderWithContext(rocksdb::FilterBuildingContext(table)));
    for (int i = 0; i < n; ++i) builder->AddKey(test::KeyAt(i * 7 + n));
    const size_t planned = PlanFilter(FilterSpec{type, 10}, n).bytes;
    std::unique_ptr<const char[]> buf;
    const rocksdb::Slice filter = builder->Finish(&buf);
    const auto reader = NewFilterReader(filter.data(), filter.size());
    int missed = 0;
    for (int i = 0; i < n; ++i) {
      missed += reader->MayMatch(KeyHash(rocksdb::Slice(test::KeyAt(i * 7 + n)))) ? 0 : 1;
    }
    EXPECT_EQ(missed, 0) << n << " keys";
    ++b.filters;
    b.planned_bytes += planned;
    b.written_bytes += filter.size();
    b.planned_fp += PlanInBytes(type, n, planned, false).expected_fpr * n;
    b.written_fp += PlanInBytes(type, n, filter.size(), false).expected_fpr * n;
    // The same keys again: the same bytes.
    for (int i = 0; i < n; ++i) builder->AddKey(test::KeyAt(i * 7 + n));
    std::unique_ptr<const char[]> again_buf;
    EXPECT_EQ(builder->Finish(&again_buf), filter) << n << " keys";
    // Never past the allocation the planned size gets.
    EXPECT_LE(filter.size(), UsableSize(planned)) << n << " keys";
    if (filter.size() != planned) {
      ++b.rounded;
      (filter.size() > planned ? b.up : b.down) += 1;
      // A rounded filter fills its allocation, up to the kind's step.
      EXPECT_LE(UsableSize(filter.size()) - filter.size(), slack) << n << " keys";
    }
  }
  return b;
}

// Whether the allocator hands out more than asked (size classes), as glibc
// and jemalloc do; AddressSanitizer's reports exactly the size asked.
bool AllocatorHasSlack() {
  for (size_t n = 1001; n < 1100; ++n) {
    if (UsableSize(n) > n) return true;
  }
  return false;
}

TEST(MemoryRoundingTest, FiltersGrowToFillTheirAllocations) {
  ASSERT_TRUE(AllocationClassesKnown());
  if (!AllocatorHasSlack()) GTEST_SKIP() << "this allocator gives exactly the size asked";
  // The bumped ribbon filter takes any byte count; a cuckoo table grows by
  // whole buckets (up to 16 bytes at 10 bits/key).
  for (const auto& [name, slack] : {std::pair<const char*, size_t>{"burr", 0}, {"cuckoo", 16}}) {
    SCOPED_TRACE(name);
    const Built b = BuildFilters(name, /*optimize=*/true, slack);
    EXPECT_GT(b.rounded, b.filters / 2);
    EXPECT_EQ(b.down, 0u);
    EXPECT_LT(b.written_fp, b.planned_fp);
  }
}

TEST(MemoryRoundingTest, CoarseStepsKeepThePlannedSizes) {
  // A fuse filter's size steps by whole segments and a cache-local Bloom
  // filter's by 64-byte lines: wider than glibc's 16-byte classes at these
  // sizes, so neither is resized.
  for (const char* name : {"fuse", "bloom"}) {
    SCOPED_TRACE(name);
    const Built b = BuildFilters(name, /*optimize=*/true);
    EXPECT_EQ(b.rounded, 0u);
  }
}

TEST(MemoryRoundingTest, OffMeansThePlannedSizes) {
  const Built b = BuildFilters("burr", /*optimize=*/false);
  EXPECT_EQ(b.rounded, 0u);
  EXPECT_EQ(b.written_bytes, b.planned_bytes);
}

}  // namespace
}  // namespace sstfilter
