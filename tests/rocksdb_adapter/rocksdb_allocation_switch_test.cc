// Switching allocation on a live RocksDB database (uniform -> monkey ->
// uniform): files keep the filters they were built with, and every read
// stays correct.

#include <rocksdb/options.h>

#include <cstdint>

#include "allocation_test_util.h"

namespace sstfilter {
namespace {

using test::AllocationTest;
using test::kNumKeys;
using test::MultiLevelOptions;

// uniform -> monkey -> uniform on one DB, writing and compacting in each
// phase: old files keep their filters, every key is found every time.
TEST_F(AllocationTest, SwitchingAllocationOnALiveDbKeepsEveryReadCorrect) {
  const char* policies[] = {"{id=sstfilter.cuckoo;bits_per_key=10;allocation=uniform}",
                            "{id=sstfilter.cuckoo;bits_per_key=10;allocation=monkey}",
                            "{id=sstfilter.cuckoo;bits_per_key=10;allocation=uniform}"};
  uint64_t written = 0;
  for (int phase = 0; phase < 3; ++phase) {
    SCOPED_TRACE(policies[phase]);
    const rocksdb::Options options = MultiLevelOptions(policies[phase]);
    auto db = Open(options);
    ASSERT_NE(db, nullptr);
    ExpectAllFound(db.get(), written);  // what earlier phases wrote
    // New keys and overwrites of old ones.
    const uint64_t end = written + kNumKeys / 3;
    Write(db.get(), options, written / 2, end);
    written = end;
    ExpectAllFound(db.get(), written);
    const auto stats = FilterStatsByLevel(db.get());
    double fps =
        FalsePositivesPerLookup(db.get(), options, kCuckooType, stats, nullptr, written);
    // Without filters it would be one per run (5 or more).
    EXPECT_LT(fps, 0.2);
  }
}

}  // namespace
}  // namespace sstfilter
