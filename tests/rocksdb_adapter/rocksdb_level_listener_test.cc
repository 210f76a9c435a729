// allocation=monkey with the LevelListener: the tree from RocksDB's own
// metadata, on real DBs whose shapes are built by hand (CompactByHand), so
// every figure follows from the keys.

#include <rocksdb/convenience.h>
#include <rocksdb/utilities/options_util.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "allocation_test_util.h"

namespace sstfilter {
namespace {

using test::AllocationTest;
using test::kNumKeys;
using test::LevelFilterStats;
using test::MultiLevelOptions;

std::string Monkey(const char* type) {
  return std::string("{id=sstfilter.") + type + ";bits_per_key=10;allocation=monkey}";
}
std::string Uniform(const char* type) {
  return std::string("{id=sstfilter.") + type + ";bits_per_key=10;allocation=uniform}";
}

class LevelListenerTest : public AllocationTest {
 protected:
  struct Tree {
    std::map<int, LevelFilterStats> stats;
    double fps_per_lookup = 0;
  };

  static rocksdb::Options Options(const std::string& policy, bool listener) {
    rocksdb::Options options = MultiLevelOptions(policy);
    if (listener) options.listeners.push_back(NewLevelListener());
    return options;
  }

  // The tree CompactByHand builds from kNumKeys keys below `base_level`,
  // then two L0 files over the whole key range; its filters per level and
  // false positives per absent lookup.
  Tree Build(const std::string& policy, const rocksdb::Options& options, FilterType type,
             int base_level = 1) {
    std::printf("\n%s, levels from L%d:\n\n", policy.c_str(), base_level);
    test::TempDir dir;
    std::unique_ptr<rocksdb::DB> db;
    EXPECT_TRUE(sstfilter::OpenDB(options, dir.path(), &db).ok());
    std::unique_ptr<rocksdb::ColumnFamilyHandle> tick = NewTickFamily(db.get(), options);
    Write(db.get(), options, 0, kNumKeys, base_level, tick.get());
    for (int flush = 0; flush < 2; ++flush) {
      for (uint64_t i = 0; i < 300; ++i) {
        const uint64_t k = (i * 397 + flush * 131) % kNumKeys;
        EXPECT_TRUE(db->Put({}, test::KeyAt(k), test::ValueOf(k)).ok());
      }
      EXPECT_TRUE(db->Flush({}).ok());
    }
    Tree tree;
    tree.stats = FilterStatsByLevel(db.get());
    ExpectAllFound(db.get(), kNumKeys);
    tree.fps_per_lookup = FalsePositivesPerLookup(db.get(), options, type, tree.stats);
    for (const auto& s : tree.stats) {
      std::printf("  L%d: %zu files, %llu entries, %.2f bits/key\n", s.first, s.second.files,
                  static_cast<unsigned long long>(s.second.entries), s.second.BitsPerKey());
    }
    std::printf("  false positives per absent lookup: %.5f\n", tree.fps_per_lookup);
    EXPECT_TRUE(db->DestroyColumnFamilyHandle(tick.release()).ok());
    return tree;
  }

  // Column family "tick", holding one file, for Tick.
  static std::unique_ptr<rocksdb::ColumnFamilyHandle> NewTickFamily(rocksdb::DB* db,
                                                                    const rocksdb::Options& options) {
    rocksdb::ColumnFamilyHandle* raw = nullptr;
    EXPECT_TRUE(db->CreateColumnFamily(options, "tick", &raw).ok());
    std::unique_ptr<rocksdb::ColumnFamilyHandle> tick(raw);
    EXPECT_TRUE(db->Put({}, raw, "tick", "tock").ok());
    EXPECT_TRUE(db->Flush({}, raw).ok());
    return tick;
  }

  // Bits/key of the files CompactFiles writes when it rewrites `level` in
  // place, after a reopen and one flush (the listener's first report).
  static double RewrittenAfterReopen(const std::string& dir, const rocksdb::Options& options, int level) {
    std::unique_ptr<rocksdb::DB> db;
    EXPECT_TRUE(sstfilter::OpenDB(options, dir, &db).ok());
    EXPECT_TRUE(db->Put({}, test::KeyAt(1), test::ValueOf(1)).ok());
    EXPECT_TRUE(db->Flush({}).ok());
    rocksdb::ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(&meta);
    std::vector<std::string> names;
    for (const auto& f : meta.levels[level].files) names.push_back(f.name);
    EXPECT_TRUE(db->CompactFiles(HandCompaction(options), names, level).ok());
    return FilterStatsByLevel(db.get()).at(level).BitsPerKey();
  }
};

// On the tree the listener reports, monkey spends uniform's memory to
// within 5% (files are planned as the tree stood when each was built, and
// this small tree changes much between its compactions) and has well under
// its false positives, for every filter type.
TEST_F(LevelListenerTest, MonkeyOnTheReportedTreeBeatsUniformInTheSameMemory) {
  for (const char* type_name : {"cuckoo", "bloom", "fuse"}) {
    SCOPED_TRACE(type_name);
    FilterType type;
    ASSERT_TRUE(FilterTypeFromName(type_name, &type));
    const Tree uniform = Build(Uniform(type_name), Options(Uniform(type_name), true), type);
    const Tree monkey = Build(Monkey(type_name), Options(Monkey(type_name), true), type);
    ASSERT_EQ(monkey.stats.size(), 4u);  // L0 to L3
    const double ratio = TotalBitsPerKey(monkey.stats) / TotalBitsPerKey(uniform.stats);
    std::printf("%s: memory %.3fx uniform's, false positives %.3fx\n", type_name, ratio,
                monkey.fps_per_lookup / uniform.fps_per_lookup);
    EXPECT_GT(ratio, 0.97);
    EXPECT_LT(ratio, 1.05);
    EXPECT_LT(monkey.stats.at(3).BitsPerKey(), uniform.stats.at(3).BitsPerKey());
    for (int level = 0; level < 3; ++level) {
      EXPECT_GT(monkey.stats.at(level).BitsPerKey(), 11.5) << "L" << level;
    }
    EXPECT_LT(monkey.fps_per_lookup, 0.6 * uniform.fps_per_lookup);
  }
}

// With level_compaction_dynamic_level_bytes the levels are the last ones
// (L4 to L6 of 7): the listener reports them as they are.
TEST_F(LevelListenerTest, DynamicLevelBytes) {
  auto with_dynamic = [](rocksdb::Options options) {
    options.level_compaction_dynamic_level_bytes = true;
    options.num_levels = 7;
    return options;
  };
  const Tree uniform = Build(Uniform("cuckoo"), with_dynamic(Options(Uniform("cuckoo"), true)),
                            kCuckooType, 4);
  const Tree monkey = Build(Monkey("cuckoo"), with_dynamic(Options(Monkey("cuckoo"), true)),
                           kCuckooType, 4);
  ASSERT_EQ(monkey.stats.size(), 4u);
  ASSERT_EQ(monkey.stats.count(6), 1u);
  EXPECT_LT(monkey.stats.at(6).BitsPerKey(), 10);
  EXPECT_GT(monkey.stats.at(4).BitsPerKey(), 11.5);
  EXPECT_GT(monkey.stats.at(5).BitsPerKey(), 11.5);
  EXPECT_LT(monkey.fps_per_lookup, 0.6 * uniform.fps_per_lookup);
}

// After a reopen the listener reports the whole tree at the first flush, so
// a rewritten bottom level gets its share at once; the level model alone
// starts empty and gives it the budget.
TEST_F(LevelListenerTest, TheTreeIsKnownAfterAReopen) {
  test::TempDir dir;
  {
    const rocksdb::Options options = Options(Uniform("cuckoo"), false);
    std::unique_ptr<rocksdb::DB> db;
    ASSERT_TRUE(sstfilter::OpenDB(options, dir.path(), &db).ok());
    Write(db.get(), options, 0, kNumKeys);
  }
  const double with_listener = RewrittenAfterReopen(dir.path(), Options(Monkey("cuckoo"), true), 3);
  const double without = RewrittenAfterReopen(dir.path(), Options(Monkey("cuckoo"), false), 3);
  std::printf("L3 rewritten after a reopen: %.3f bits/key with the listener, %.3f without\n",
              with_listener, without);
  EXPECT_LT(with_listener, without - 0.15);
  EXPECT_GT(without, 10);
}

// Each column family has its own tree: one with three levels gives its
// bottom fewer bits, one with all its keys in one level keeps the budget.
TEST_F(LevelListenerTest, ColumnFamiliesHaveTheirOwnTrees) {
  const rocksdb::Options options = Options(Monkey("cuckoo"), true);
  test::TempDir dir;
  std::unique_ptr<rocksdb::DB> db;
  ASSERT_TRUE(sstfilter::OpenDB(options, dir.path(), &db).ok());
  rocksdb::ColumnFamilyHandle* flat_raw = nullptr;
  ASSERT_TRUE(db->CreateColumnFamily(options, "flat", &flat_raw).ok());
  std::unique_ptr<rocksdb::ColumnFamilyHandle> flat(flat_raw);
  Write(db.get(), options, 0, kNumKeys);
  // "flat": a quarter of the keys flushed (as many L0 files as memtables
  // filled), then all of it into L3 in one compaction.
  for (uint64_t k = 0; k < kNumKeys / 4; ++k) {
    ASSERT_TRUE(db->Put({}, flat.get(), test::KeyAt(k), test::ValueOf(k)).ok());
  }
  ASSERT_TRUE(db->Flush({}, flat.get()).ok());
  auto rewrite = [&](rocksdb::ColumnFamilyHandle* cf, int from, int to) {
    rocksdb::ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(cf, &meta);
    std::vector<std::string> names;
    for (const auto& level : meta.levels) {
      if (level.level < from || level.level > to) continue;
      for (const auto& f : level.files) names.push_back(f.name);
    }
    ASSERT_TRUE(db->CompactFiles(HandCompaction(options), cf, names, to).ok());
  };
  rewrite(flat.get(), 0, 3);
  // A flush of each posts its tree; then each bottom level is rewritten.
  ASSERT_TRUE(db->Put({}, test::KeyAt(1), test::ValueOf(1)).ok());
  ASSERT_TRUE(db->Flush({}).ok());
  ASSERT_TRUE(db->Put({}, flat.get(), test::KeyAt(1), test::ValueOf(1)).ok());
  ASSERT_TRUE(db->Flush({}, flat.get()).ok());
  rewrite(flat.get(), 3, 3);
  rewrite(db->DefaultColumnFamily(), 3, 3);

  auto bottom_bits = [&](rocksdb::ColumnFamilyHandle* cf) {
    rocksdb::TablePropertiesCollection props;
    EXPECT_TRUE(db->GetPropertiesOfAllTables(cf, &props).ok());
    rocksdb::ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(cf, &meta);
    uint64_t bytes = 0, entries = 0;
    for (const auto& f : meta.levels[3].files) {
      for (const auto& p : props) {
        if (p.first.size() >= f.name.size() &&
            p.first.compare(p.first.size() - f.name.size(), f.name.size(), f.name) == 0) {
          bytes += p.second->filter_size;
          entries += p.second->num_entries;
        }
      }
    }
    return 8.0 * static_cast<double>(bytes) / static_cast<double>(std::max<uint64_t>(entries, 1));
  };
  EXPECT_LT(bottom_bits(db->DefaultColumnFamily()), 9.9);
  // The flat family: its L3 and the one flushed L0 file are two runs, the
  // L0 file tiny: its bottom keeps nearly all of the budget.
  EXPECT_GT(bottom_bits(flat.get()), 9.9);
  ASSERT_TRUE(db->DestroyColumnFamilyHandle(flat.release()).ok());
}

// A level whose files hold a tenth of the key range is probed by a tenth of
// the lookups: its files are as dense in keys as the bottom's, and get the
// bottom's filter. The same number of keys spread over the whole range get
// the upper level's many bits.
TEST_F(LevelListenerTest, ALevelOverATenthOfTheKeyRangeGetsTheBottomsFilter) {
  // Bits/key of L2 and L3 once L3 holds keys [0, kNumKeys) and L2 a tenth
  // as many, every `step`-th key from `begin`.
  auto build = [](uint64_t begin, uint64_t step) {
    const rocksdb::Options options = Options(Monkey("cuckoo"), true);
    test::TempDir dir;
    std::unique_ptr<rocksdb::DB> db;
    EXPECT_TRUE(sstfilter::OpenDB(options, dir.path(), &db).ok());
    // Keys flushed, then every L0 file compacted into `level` (a flush
    // posts the tree the compaction's builders plan on).
    auto write_into = [&](uint64_t from, uint64_t every, int level) {
      for (uint64_t i = 0; i < kNumKeys / 10; ++i) {
        const uint64_t k = from + i * every;
        EXPECT_TRUE(db->Put({}, test::KeyAt(k), test::ValueOf(k)).ok());
      }
      EXPECT_TRUE(db->Flush({}).ok());
      rocksdb::ColumnFamilyMetaData meta;
      db->GetColumnFamilyMetaData(&meta);
      std::vector<std::string> names;
      for (const auto& f : meta.levels[0].files) names.push_back(f.name);
      EXPECT_TRUE(db->CompactFiles(HandCompaction(options), names, level).ok());
    };
    for (uint64_t tenth = 0; tenth < 10; ++tenth) write_into(tenth, 10, 3);
    write_into(begin, step, 2);
    const std::map<int, LevelFilterStats> stats = FilterStatsByLevel(db.get());
    EXPECT_EQ(stats.size(), 2u);
    return std::make_pair(stats.at(2).BitsPerKey(), stats.at(3).BitsPerKey());
  };
  const auto tenth = build(5 * kNumKeys / 10, 1);
  const auto whole = build(3, 10);
  std::printf("bits/key, L2 / L3: L2 over a tenth of the keys %.2f / %.2f, over all %.2f / %.2f\n",
              tenth.first, tenth.second, whole.first, whole.second);
  EXPECT_NEAR(tenth.first, tenth.second, 1.0);
  EXPECT_GT(whole.first, whole.second + 2);
}

// The listener by name, as an options string or OPTIONS file gives it.
TEST(LevelListenerOptionsTest, FromAnOptionsString) {
  rocksdb::ConfigOptions config;
  config.ignore_unsupported_options = false;
  for (const char* text : {"listeners={sstfilter.LevelListener}", "listeners=sstfilter.LevelListener"}) {
    rocksdb::DBOptions options;
    const rocksdb::Status s = rocksdb::GetDBOptionsFromString(config, rocksdb::DBOptions(), text, &options);
    ASSERT_TRUE(s.ok()) << text << ": " << s.ToString();
    ASSERT_EQ(options.listeners.size(), 1u) << text;
    EXPECT_STREQ(options.listeners[0]->Name(), "sstfilter.LevelListener");
  }
}

}  // namespace
}  // namespace sstfilter
