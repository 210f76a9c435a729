// allocation=monkey on real multi-level RocksDB databases: per-level filter
// bits/key follow the allocation (upper levels more, the bottom less, the
// same memory in all), every key is found, absent keys are filtered with
// fewer false positives than uniform. (Switching allocation on a live DB:
// rocksdb_allocation_switch_test.)

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <sstfilter/sstfilter.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "allocation/level_allocation.h"
#include "filters/cuckoo_kind.h"
#include "filters/planner.h"
#include "allocation_test_util.h"
#include "rocksdb_adapter/db_open.h"
#include "rocksdb_test_util.h"

namespace sstfilter {
namespace {

using test::AbsentKeyAt;
using test::AllocationTest;
using test::KeyAt;
using test::kNumAbsent;
using test::kNumKeys;
using test::LevelFilterStats;
using test::MultiLevelOptions;
using test::ValueOf;

struct Measured {
  std::map<int, LevelFilterStats> stats;
  double fps_per_lookup = 0;
  std::map<int, std::pair<uint64_t, uint64_t>> level_fps;  // {false positives, probes}
};

class AllocationDbTest : public AllocationTest {
 protected:
  // PutAndFlush into one memtable, then compacts what L0 holds into one
  // sorted run at `level`.
  static void WriteRun(rocksdb::DB* db, uint64_t begin, uint64_t end, int level) {
    PutAndFlush(db, begin, end);
    rocksdb::ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(&meta);
    std::vector<std::string> l0;
    for (const auto& f : meta.levels[0].files) l0.push_back(f.name);
    ASSERT_FALSE(l0.empty());
    rocksdb::CompactionOptions one_run;  // one output file
    one_run.compression = rocksdb::kSnappyCompression;
    const rocksdb::Status s = db->CompactFiles(one_run, l0, level);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  Measured Run(const std::string& policy, FilterType type, bool universal = false) {
    const rocksdb::Options options = MultiLevelOptions(policy, universal);
    test::TempDir dir;
    std::unique_ptr<rocksdb::DB> raw;
    EXPECT_TRUE(sstfilter::OpenDB(options, dir.path(), &raw).ok());
    std::unique_ptr<rocksdb::DB> db = std::move(raw);
    Measured m;
    if (universal) {
      // Two sorted runs below L0, made explicitly: the older two thirds of
      // the keys in L6, the rest in L5 (newer runs sit higher).
      WriteRun(db.get(), 0, 2 * kNumKeys / 3, 6);
      WriteRun(db.get(), 2 * kNumKeys / 3, kNumKeys, 5);
    } else {
      Write(db.get(), options, 0, kNumKeys);
    }
    // A few L0 files over the whole key range, under the compaction trigger.
    rocksdb::WriteOptions wo;
    wo.disableWAL = true;
    for (int flush = 0; flush < 2; ++flush) {
      for (uint64_t i = 0; i < 300; ++i) {
        const uint64_t k = (i * 397 + flush * 131) % kNumKeys;
        EXPECT_TRUE(db->Put(wo, KeyAt(k), ValueOf(k)).ok());
      }
      EXPECT_TRUE(db->Flush({}).ok());
    }
    m.stats = FilterStatsByLevel(db.get());
    std::printf("%s: %.3f bits/key in all\n", policy.c_str(), TotalBitsPerKey(m.stats));
    for (const auto& s : m.stats) {
      std::printf("  L%d: %zu files, %llu entries, %.2f bits/key\n", s.first, s.second.files,
                  static_cast<unsigned long long>(s.second.entries), s.second.BitsPerKey());
    }
    ExpectAllFound(db.get(), kNumKeys);
    m.fps_per_lookup =
        FalsePositivesPerLookup(db.get(), options, type, m.stats, &m.level_fps);
    uint64_t probes = 0;
    for (const auto& l : m.level_fps) probes += l.second.second;
    std::printf("  false positives per absent lookup: %.5f (%.2f filters probed)\n",
                m.fps_per_lookup, static_cast<double>(probes) / kNumAbsent);
    return m;
  }
};

TEST_F(AllocationDbTest, MonkeyGivesUpperLevelsMoreBitsInTheSameMemory) {
  // (This tree's SSTs hold about 950 keys, where sstfilter.fuse writes
  // cuckoo filters, the more accurate at that size: for fuse this checks
  // the policy's allocation, not fuse filters' FPRs, which the db_bench
  // multi-level shape measures.)
  for (const char* type_name : {"cuckoo", "bloom", "fuse"}) {
    SCOPED_TRACE(type_name);
    FilterType type;
    ASSERT_TRUE(FilterTypeFromName(type_name, &type));
    const std::string id = std::string("sstfilter.") + type_name;
    const Measured uniform = Run("{id=" + id + ";bits_per_key=10;allocation=uniform}", type);
    const Measured monkey = Run("{id=" + id + ";bits_per_key=10;allocation=monkey}", type);

    // The shape, the same for both (compactions by hand): L0's two files,
    // then L1 to L3 with most keys in L3.
    for (const Measured* m : {&uniform, &monkey}) {
      ASSERT_EQ(m->stats.size(), 4u);
      ASSERT_EQ(m->stats.at(0).files, 2u);
      ASSERT_GT(m->stats.at(3).entries, 0.85 * kNumKeys);
    }
    constexpr int kBottom = 3;

    // Uniform: every level at the budget, plus what each file's filter
    // rounds up: under one 64-byte Bloom line, and the 8-byte trailer.
    for (const auto& s : uniform.stats) {
      // (Only levels of 1000 keys or more: a level of a few hundred keys,
      // L0 here, spends a cache line's 512 bits on rounding alone.)
      if (s.second.entries < 1000) continue;
      const double rounding = 8.0 * 72 * s.second.files / s.second.entries;
      EXPECT_GT(s.second.BitsPerKey(), 10 - 0.8) << "uniform L" << s.first;
      EXPECT_LT(s.second.BitsPerKey(), 10 + 0.8 + rounding) << "uniform L" << s.first;
    }
    // Monkey: the bottom below the budget, every level above it well over,
    // the small L0 files far more; memory as uniform's.
    const double bottom_bits = monkey.stats.at(kBottom).BitsPerKey();
    EXPECT_LT(bottom_bits, uniform.stats.at(kBottom).BitsPerKey());
    for (int level = 0; level < kBottom; ++level) {
      EXPECT_GT(monkey.stats.at(level).BitsPerKey(), 11.5) << "monkey L" << level;
    }
    EXPECT_GT(monkey.stats.at(0).BitsPerKey(), bottom_bits + 5);
    const double ratio = TotalBitsPerKey(monkey.stats) / TotalBitsPerKey(uniform.stats);
    EXPECT_GT(ratio, 0.97);
    EXPECT_LT(ratio, 1.02);

    // Fewer false positives in all, and the measured FPR per level follows
    // the allocation: the levels above the bottom, summed, far below
    // uniform's (the point of it: a lookup probes each of them), the bottom
    // above uniform's by no more than its fewer bits explain. Levels that
    // both DBs' lookups probed 5000 times or more.
    EXPECT_LT(monkey.fps_per_lookup, 0.6 * uniform.fps_per_lookup);
    auto fpr = [](const Measured& m, int level) {
      const auto it = m.level_fps.find(level);
      return it == m.level_fps.end() || it->second.second < 5000
                 ? -1.0
                 : static_cast<double>(it->second.first) / it->second.second;
    };
    double monkey_upper = 0, uniform_upper = 0;
    int upper_levels = 0;
    for (int level = 0; level < kBottom; ++level) {
      if (fpr(monkey, level) < 0 || fpr(uniform, level) < 0) continue;
      monkey_upper += fpr(monkey, level);
      uniform_upper += fpr(uniform, level);
      ++upper_levels;
    }
    ASSERT_GE(upper_levels, 2) << "upper levels probed in both DBs";
    EXPECT_LT(monkey_upper, 0.3 * uniform_upper);
    ASSERT_GE(fpr(monkey, kBottom), 0);
    ASSERT_GT(fpr(uniform, kBottom), 0);
    const double model_ratio = ExpectedFprAtScale({type, bottom_bits}) /
                               ExpectedFprAtScale({type, uniform.stats.at(kBottom).BitsPerKey()});
    EXPECT_LT(fpr(monkey, kBottom), 2 * model_ratio * fpr(uniform, kBottom));
  }
}

// Universal compaction: monkey keeps every file at the budget, as uniform
// (docs/design/level_allocation.md: a run's size when its filter is built
// does not predict its share of the tree while it lives; sizing runs by the
// level model spent less than the budget on bottom runs, which this test
// rejects).
TEST_F(AllocationDbTest, UniversalCompactionKeepsTheBudget) {
  const Measured monkey = Run("{id=sstfilter.cuckoo;bits_per_key=10;allocation=monkey}",
                              kCuckooType, /*universal=*/true);
  int runs_below_l0 = 0;
  for (const auto& s : monkey.stats) {
    runs_below_l0 += s.first >= 1 ? 1 : 0;
    // (Only levels of 1000 keys or more: L0's files, a few hundred keys
    // each, round up more.)
    if (s.second.entries < 1000) continue;
    EXPECT_GT(s.second.BitsPerKey(), 9.95) << "L" << s.first;
    EXPECT_LT(s.second.BitsPerKey(), 10.3) << "L" << s.first;
  }
  ASSERT_GE(runs_below_l0, 2) << "not the multi-run tree the test needs";
}

}  // namespace
}  // namespace sstfilter
