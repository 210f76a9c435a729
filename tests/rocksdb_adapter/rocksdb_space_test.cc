// CalculateSpace and EstimatedFpRate, which RocksDB 10.9 on calls at every
// data block to estimate the file's size: they must say what Finish will
// write, for every kind, the small form, the built-in family's guard and
// monkey's per-level choice. (Before 10.9 RocksDB does not call them; the
// adapter is then driven directly, so every version checks the same
// numbers.) With optimize_filters_for_memory, which RocksDB turns on by
// default from 9.2, Finish fills the filter's allocation and may write up
// to one allocator size class more (rocksdb_memory_rounding_test); these
// tests pin the planned sizes, so they turn it off.

#include <gtest/gtest.h>
#include <rocksdb/convenience.h>
#include <rocksdb/table.h>
#include <sstfilter/sstfilter.h>

#include <cmath>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "rocksdb_adapter/bits_adapter.h"
#include "rocksdb_adapter/rocksdb_internal.h"

namespace sstfilter {
namespace {

rocksdb::BlockBasedTableOptions PlannedSizes() {
  rocksdb::BlockBasedTableOptions table;
  table.optimize_filters_for_memory = false;
  return table;
}

// Through RocksDB's own interface where it has these methods.
size_t Space(rocksdb::FilterBitsBuilder* builder, size_t n) {
#if SSTFILTER_HAS_CALCULATE_SPACE
  return builder->CalculateSpace(n);
#else
  return static_cast<BitsBuilderAdapter*>(builder)->CalculateSpace(n);
#endif
}

double Fpr(rocksdb::FilterBitsBuilder* builder, size_t n, size_t bytes) {
#if SSTFILTER_HAS_CALCULATE_SPACE
  return builder->EstimatedFpRate(n, bytes);
#else
  return static_cast<BitsBuilderAdapter*>(builder)->EstimatedFpRate(n, bytes);
#endif
}

std::string Key(size_t i) { return "space-key-" + std::to_string(i); }

// Adds keys [begin, begin + n) and returns the finished filter's size.
size_t FinishedSize(rocksdb::FilterBitsBuilder* builder, size_t begin, size_t n) {
  for (size_t i = begin; i < begin + n; ++i) builder->AddKey(Key(i));
  std::unique_ptr<const char[]> buf;
  return builder->Finish(&buf).size();
}

// Counts from the small form's range through a few partitions to a file.
const std::vector<size_t> kCounts = {1, 2, 3, 7, 20, 50, 64, 100, 129, 300,
                                     1000, 4093, 10000, 65537, 200000};

struct SpaceCase {
  const char* name;
  Compat compat;
};

void PrintTo(const SpaceCase& c, std::ostream* os) {
  *os << c.name << (c.compat == Compat::kBuiltin ? " (built-in family)" : "");
}

class SpaceTest : public ::testing::TestWithParam<SpaceCase> {};

TEST_P(SpaceTest, CalculateSpaceIsWhatFinishWrites) {
  for (double bpk : {6.0, 10.0, 16.0}) {  // every kind's range holds these
    std::shared_ptr<const rocksdb::FilterPolicy> policy;
    ASSERT_TRUE(NewFilterPolicy(GetParam().name, bpk, GetParam().compat, &policy).ok());
    rocksdb::BlockBasedTableOptions table = PlannedSizes();
    std::unique_ptr<rocksdb::FilterBitsBuilder> builder(
        policy->GetBuilderWithContext(rocksdb::FilterBuildingContext(table)));
    for (size_t n : kCounts) {
      const size_t predicted = Space(builder.get(), n);
      const size_t actual = FinishedSize(builder.get(), n * 7, n);
      EXPECT_EQ(predicted, actual) << GetParam().name << " " << bpk << " bits/key, " << n << " keys";
      // RocksDB's contract, "ideally, usually": a fuse filter's size is
      // not monotonic in the key count (its segments double at
      // thresholds), so the largest count found may fall just short.
      EXPECT_GE(builder->ApproximateNumEntries(predicted), n * 99 / 100) << n;
      const double fpr = Fpr(builder.get(), n, actual);
      EXPECT_GT(fpr, 0.0) << n;
      EXPECT_LT(fpr, 1.0) << n;
    }
  }
}

// The estimate is what the finished filter does: measured over absent
// keys, within 4 standard deviations and 20% of the model.
TEST_P(SpaceTest, EstimatedFpRateIsWhatTheFilterDoes) {
  for (double bpk : {6.0, 10.0}) {
    std::shared_ptr<const rocksdb::FilterPolicy> policy;
    ASSERT_TRUE(NewFilterPolicy(GetParam().name, bpk, GetParam().compat, &policy).ok());
    rocksdb::BlockBasedTableOptions table = PlannedSizes();
    std::unique_ptr<rocksdb::FilterBitsBuilder> builder(
        policy->GetBuilderWithContext(rocksdb::FilterBuildingContext(table)));
    const size_t n = 20000;
    for (size_t i = 0; i < n; ++i) builder->AddKey(Key(i));
    std::unique_ptr<const char[]> buf;
    const rocksdb::Slice filter = builder->Finish(&buf);
    const double expected = Fpr(builder.get(), n, filter.size());
    std::unique_ptr<rocksdb::FilterBitsReader> reader(policy->GetFilterBitsReader(filter));
    const int queries = 400000;
    int positives = 0;
    for (int i = 0; i < queries; ++i) positives += reader->MayMatch("absent-" + std::to_string(i));
    const double sigma = std::sqrt(expected * (1 - expected) / queries);
    EXPECT_NEAR(static_cast<double>(positives) / queries, expected, 0.2 * expected + 4 * sigma)
        << GetParam().name << " at " << bpk << " bits/key";
  }
}

// A larger filter of the same kind is expected to be more accurate.
TEST_P(SpaceTest, EstimatedFpRateFallsWithBytes) {
  std::shared_ptr<const rocksdb::FilterPolicy> policy;
  ASSERT_TRUE(NewFilterPolicy(GetParam().name, 12, GetParam().compat, &policy).ok());
  rocksdb::BlockBasedTableOptions table = PlannedSizes();
  std::unique_ptr<rocksdb::FilterBitsBuilder> builder(
      policy->GetBuilderWithContext(rocksdb::FilterBuildingContext(table)));
  const size_t n = 100000;
  const size_t bytes = Space(builder.get(), n);
  EXPECT_GT(Fpr(builder.get(), n, bytes), Fpr(builder.get(), n, bytes * 3 / 2));
  EXPECT_LT(Fpr(builder.get(), n, bytes), Fpr(builder.get(), n, bytes * 2 / 3));
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, SpaceTest,
    ::testing::Values(SpaceCase{"bloom", Compat::kSstfilter}, SpaceCase{"cuckoo", Compat::kSstfilter},
                      SpaceCase{"cuckoo_plain", Compat::kSstfilter},
                      SpaceCase{"cuckoo_semisorted", Compat::kSstfilter},
                      SpaceCase{"fuse", Compat::kSstfilter}, SpaceCase{"burr", Compat::kSstfilter},
                      SpaceCase{"cuckoo", Compat::kBuiltin}, SpaceCase{"fuse", Compat::kBuiltin},
                      SpaceCase{"burr", Compat::kBuiltin}),
    [](const ::testing::TestParamInfo<SpaceCase>& info) {
      return std::string(info.param.name) +
             (info.param.compat == Compat::kBuiltin ? "_builtin" : "");
    });

// allocation=monkey: the level model is taught a three-level tree by the
// policy's own builders (as flushes and compactions would), then a file
// for L1 gets more bits than the budget. CalculateSpace, asked while the
// file is built, reports that choice, not the budget's size.
TEST(MonkeySpaceTest, CalculateSpaceFollowsTheLevelChoice) {
  for (const char* kind : {"bloom", "cuckoo", "fuse", "burr"}) {
    std::shared_ptr<const rocksdb::FilterPolicy> policy;
    const std::string text =
        std::string("{id=sstfilter.") + kind + ";bits_per_key=10;allocation=monkey}";
    ASSERT_TRUE(rocksdb::FilterPolicy::CreateFromString(rocksdb::ConfigOptions(), text, &policy)
                    .ok());
    std::shared_ptr<const rocksdb::FilterPolicy> uniform;
    ASSERT_TRUE(NewFilterPolicy(kind, 10, &uniform).ok());
    rocksdb::BlockBasedTableOptions table = PlannedSizes();
    auto context = [&](int level, bool bottommost) {
      rocksdb::FilterBuildingContext c(table);
      c.level_at_creation = level;
      c.compaction_style = rocksdb::kCompactionStyleLevel;
      c.is_bottommost = bottommost;
      return c;
    };
    // L3 (bottom): 400k keys; L2: 40k; L1: 4k, over the same key range.
    const struct { int level; size_t keys; } tree[] = {{3, 400000}, {2, 40000}, {1, 4000}};
    for (const auto& lv : tree) {
      std::unique_ptr<rocksdb::FilterBitsBuilder> b(
          policy->GetBuilderWithContext(context(lv.level, lv.level == 3)));
      for (size_t i = 0; i < lv.keys; ++i) b->AddKey(Key(i * (400000 / lv.keys)));
      std::unique_ptr<const char[]> buf;
      b->Finish(&buf);
    }
    std::unique_ptr<rocksdb::FilterBitsBuilder> file(
        policy->GetBuilderWithContext(context(1, false)));
    std::unique_ptr<rocksdb::FilterBitsBuilder> budget(
        uniform->GetBuilderWithContext(rocksdb::FilterBuildingContext(table)));
    const size_t n = 4000;
    for (size_t i = 0; i < n; ++i) file->AddKey(Key(i * 100));
    const size_t predicted = Space(file.get(), n);
    std::unique_ptr<const char[]> buf;
    const size_t actual = file->Finish(&buf).size();
    EXPECT_EQ(predicted, actual) << kind;
    EXPECT_GT(actual, Space(budget.get(), n)) << kind << ": L1 got no more than the budget";
  }
}

}  // namespace
}  // namespace sstfilter
