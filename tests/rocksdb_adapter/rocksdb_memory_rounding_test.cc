// optimize_filters_for_memory (rocksdb_adapter/memory_rounding.h): with the
// option, filters grow so that filter and block trailer fill their
// allocation, never shrink, and give the same bytes for the same keys;
// without it, the planned sizes. Every key is found whatever the size.
// tests/rocksdb_adapter/CMakeLists.txt runs it again under jemalloc where
// Debian's libjemalloc2 is installed.

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

// RocksDB loads a filter block with its block trailer (a compression type
// byte and a 32-bit checksum) into one allocation.
constexpr size_t kTrailer = 5;

// The bytes RocksDB's load of a filter of `bytes` bytes leaves unused.
size_t Slack(size_t bytes) { return UsableSize(bytes + kTrailer) - (bytes + kTrailer); }

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
    // Filter and block trailer never pass the allocation the planned size
    // gets with its trailer.
    EXPECT_LE(filter.size() + kTrailer, UsableSize(planned + kTrailer))
        << n << " keys";
    if (filter.size() != planned) {
      ++b.rounded;
      (filter.size() > planned ? b.up : b.down) += 1;
      // A rounded filter and its trailer fill their allocation, up to the
      // kind's step.
      EXPECT_LE(Slack(filter.size()), slack) << n << " keys";
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

TEST(MemoryRoundingTest, FilterAndTrailerFillTheAllocationFrom1KBTo1MB) {
  if (!AllocatorHasSlack()) GTEST_SKIP() << "this allocator gives exactly the size asked";
  std::shared_ptr<const rocksdb::FilterPolicy> policy;
  ASSERT_TRUE(NewFilterPolicy("burr", 10, &policy).ok());
  FilterType burr;
  ASSERT_TRUE(FilterTypeFromName("burr", &burr));
  rocksdb::BlockBasedTableOptions table;
  table.optimize_filters_for_memory = true;
  size_t grown = 0, built = 0;
  // 1 KB to 1 MB of filter at 10 bits/key, in steps of about 1.4x.
  for (double n = 820; n < 840000; n *= 1.41) {
    const int keys = static_cast<int>(n);
    std::unique_ptr<rocksdb::FilterBitsBuilder> builder(
        policy->GetBuilderWithContext(rocksdb::FilterBuildingContext(table)));
    for (int i = 0; i < keys; ++i) builder->AddKey(test::KeyAt(i));
    std::unique_ptr<const char[]> buf;
    const rocksdb::Slice filter = builder->Finish(&buf);
    const size_t planned = PlanFilter(FilterSpec{burr, 10}, keys).bytes;
    ++built;
    grown += filter.size() > planned ? 1 : 0;
    // Within one of glibc's 16-byte steps: above its mmap threshold the
    // class the build saw (a page) and the one a load gets (16 bytes, once
    // glibc raised the threshold) can differ.
    EXPECT_LT(Slack(filter.size()), 16u) << keys << " keys, " << filter.size() << " bytes";
    const auto reader = NewFilterReader(filter.data(), filter.size());
    int missed = 0;
    for (int i = 0; i < keys; ++i) {
      missed += reader->MayMatch(KeyHash(rocksdb::Slice(test::KeyAt(i)))) ? 0 : 1;
    }
    EXPECT_EQ(missed, 0) << keys << " keys";
  }
  EXPECT_GT(grown, built / 2);
}

TEST(MemoryRoundingTest, CoarseStepsMostlyKeepThePlannedSizes) {
  // A fuse filter's size steps by whole segments and a cache-local Bloom
  // filter's by 64-byte lines: mostly wider than the under 16 bytes glibc's
  // classes leave past filter and trailer at these sizes, so few are
  // resized, and those fill their allocation within one step.
  for (const auto& [name, step] : {std::pair<const char*, size_t>{"fuse", 16}, {"bloom", 64}}) {
    SCOPED_TRACE(name);
    const Built b = BuildFilters(name, /*optimize=*/true, step);
    EXPECT_LE(b.rounded, b.filters / 4);
    EXPECT_EQ(b.down, 0u);
  }
}

TEST(MemoryRoundingTest, OffMeansThePlannedSizes) {
  const Built b = BuildFilters("burr", /*optimize=*/false);
  EXPECT_EQ(b.rounded, 0u);
  EXPECT_EQ(b.written_bytes, b.planned_bytes);
}

}  // namespace
}  // namespace sstfilter
