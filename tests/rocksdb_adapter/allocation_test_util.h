// Shared pieces of the allocation tests on real RocksDB databases
// (rocksdb_allocation_test, rocksdb_allocation_switch_test): a small
// multi-level tree, its filters per level, and lookups that measure them.

#pragma once

#include <gtest/gtest.h>
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <sstfilter/sstfilter.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "allocation/level_allocation.h"
#include "filters/cuckoo_kind.h"
#include "filters/planner.h"
#include "rocksdb_adapter/db_open.h"
#include "rocksdb_test_util.h"

namespace sstfilter {
namespace test {

inline constexpr uint64_t kNumKeys = 120000;
inline constexpr uint64_t kNumAbsent = 30000;

struct LevelFilterStats {
  size_t files = 0;
  uint64_t entries = 0;
  uint64_t filter_bytes = 0;
  double BitsPerKey() const { return 8.0 * filter_bytes / std::max<uint64_t>(entries, 1); }
};

inline std::shared_ptr<const rocksdb::FilterPolicy> Policy(const std::string& text) {
  std::shared_ptr<const rocksdb::FilterPolicy> policy;
  const rocksdb::Status s =
      rocksdb::FilterPolicy::CreateFromString(rocksdb::ConfigOptions(), text, &policy);
  EXPECT_TRUE(s.ok()) << text << ": " << s.ToString();
  EXPECT_TRUE(IsSstFilterPolicy(policy.get())) << text;
  return policy;
}

// A tree with L0 and three levels from a small amount of data: RocksDB's
// default proportions scaled down (4 L0 files weigh as L1, each level 10x
// the one above).
inline rocksdb::Options MultiLevelOptions(const std::string& policy, bool universal = false) {
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy = Policy(policy);
  rocksdb::Options options;
  options.create_if_missing = true;
  options.statistics = rocksdb::CreateDBStatistics();
  options.compression = rocksdb::kNoCompression;
  options.write_buffer_size = 256 << 10;
  options.target_file_size_base = 16 << 10;
  options.max_bytes_for_level_base = 24 << 10;
  options.max_bytes_for_level_multiplier = 10;
  options.level0_file_num_compaction_trigger = 4;
  // Compactions run by hand (AllocationTest::CompactByHand), by these
  // static targets: L1 to L3, L3 the last level.
  options.disable_auto_compactions = true;
  options.level_compaction_dynamic_level_bytes = false;
  options.num_levels = 4;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  if (universal) {
    // The shape is built by hand (AllocationDbTest::Run), memtables large
    // enough for one run each.
    options.compaction_style = rocksdb::kCompactionStyleUniversal;
    options.num_levels = 7;
    options.write_buffer_size = 32 << 20;
  }
  return options;
}

inline std::string ValueOf(uint64_t k) {
  std::string v = "v" + std::to_string(k);
  v.resize(100, static_cast<char>('a' + k % 26));
  return v;
}

class AllocationTest : public ::testing::Test {
 protected:
  std::unique_ptr<rocksdb::DB> Open(const rocksdb::Options& options) {
    std::unique_ptr<rocksdb::DB> db;
    const rocksdb::Status s = sstfilter::OpenDB(options, dir_.path(), &db);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return db;
  }

  // Puts keys [begin, end) in a shuffled order (a fixed permutation),
  // calling after_batch() after every `batch` keys and after the last.
  template <typename AfterBatch>
  static void PutShuffled(rocksdb::DB* db, uint64_t begin, uint64_t end, uint64_t batch,
                          AfterBatch after_batch) {
    rocksdb::WriteOptions wo;
    wo.disableWAL = true;
    const uint64_t n = end - begin;
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t k = begin + (i * 7919) % n;
      ASSERT_TRUE(db->Put(wo, KeyAt(k), ValueOf(k)).ok());
      if ((i + 1) % batch == 0 || i + 1 == n) after_batch();
    }
  }

  // Writes keys [begin, end) in shuffled order, then flushes.
  static void PutAndFlush(rocksdb::DB* db, uint64_t begin, uint64_t end) {
    PutShuffled(db, begin, end, end - begin, [db] { ASSERT_TRUE(db->Flush({}).ok()); });
  }

  // Writes keys [begin, end) as fillrandom would, in a shuffled order, in
  // batches of 1000 keys (under one memtable), each flushed into one L0
  // file, and after each flush compacts by hand (CompactByHand): the tree's
  // shape follows from the keys alone, never from background timing.
  static void Write(rocksdb::DB* db, const rocksdb::Options& options, uint64_t begin,
                    uint64_t end, int base_level = 1,
                    rocksdb::ColumnFamilyHandle* tick = nullptr) {
    PutShuffled(db, begin, end, 1000, [&] {
      ASSERT_TRUE(db->Flush({}).ok());
      CompactByHand(db, options, base_level, tick);
    });
  }

  // CompactFiles' options for these trees: output files cut at the table's
  // target size and compressed with Snappy, stated because the default
  // changed (Snappy before RocksDB 9, the column family's compression
  // since), so that every version builds the same files.
  static rocksdb::CompactionOptions HandCompaction(const rocksdb::Options& options) {
    rocksdb::CompactionOptions compaction;
    compaction.compression = rocksdb::kSnappyCompression;
    compaction.output_file_size_limit = options.target_file_size_base;
    return compaction;
  }

  // A compaction RocksDB notifies listeners of, in column family `tick`
  // (which holds a file), so that a LevelListener reads the tree again: what
  // RocksDB's own compactions do, and DB::CompactFiles does not.
  static void Tick(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* tick) {
    rocksdb::CompactRangeOptions force;
    force.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    ASSERT_TRUE(db->CompactRange(force, tick, nullptr, nullptr).ok());
  }

  // Leveled compaction, run in the calling thread (the options turn
  // automatic compaction off): L0 at level0_file_num_compaction_trigger
  // files goes into `base_level` with the files it overlaps there; a level
  // over its target (max_bytes_for_level_base * multiplier^(L - base))
  // sends its file with the oldest data into the next level with the files
  // it overlaps there, until it is under target. The last level keeps what
  // it gets.
  // With `tick`, Tick after each compaction.
  static void CompactByHand(rocksdb::DB* db, const rocksdb::Options& options,
                            int base_level = 1, rocksdb::ColumnFamilyHandle* tick = nullptr) {
    for (;;) {
      rocksdb::ColumnFamilyMetaData meta;
      db->GetColumnFamilyMetaData(&meta);
      const int last = static_cast<int>(meta.levels.size()) - 1;
      std::vector<const rocksdb::SstFileMetaData*> inputs;
      int level = -1;
      int output = -1;
      if (meta.levels[0].files.size() >=
          static_cast<size_t>(options.level0_file_num_compaction_trigger)) {
        level = 0;
        output = base_level;
        for (const auto& f : meta.levels[0].files) inputs.push_back(&f);
      }
      double target = static_cast<double>(options.max_bytes_for_level_base);
      for (int lv = base_level; level < 0 && lv < last;
           ++lv, target *= options.max_bytes_for_level_multiplier) {
        uint64_t bytes = 0;
        const rocksdb::SstFileMetaData* oldest = nullptr;
        for (const auto& f : meta.levels[lv].files) {
          bytes += f.size;
          if (oldest == nullptr || f.largest_seqno < oldest->largest_seqno) oldest = &f;
        }
        if (static_cast<double>(bytes) > target) {
          level = lv;
          output = lv + 1;
          inputs.push_back(oldest);
        }
      }
      if (level < 0) return;
      std::string lo = inputs[0]->smallestkey, hi = inputs[0]->largestkey;
      std::vector<std::string> names;
      for (const auto* f : inputs) {
        lo = std::min(lo, f->smallestkey);
        hi = std::max(hi, f->largestkey);
        names.push_back(f->name);
      }
      for (const auto& f : meta.levels[output].files) {
        if (!(f.largestkey < lo || hi < f.smallestkey)) names.push_back(f.name);
      }
      const rocksdb::Status s = db->CompactFiles(HandCompaction(options), names, output);
      ASSERT_TRUE(s.ok()) << s.ToString();
      if (tick != nullptr) Tick(db, tick);
    }
  }

  // Per level: files, entries and filter bytes, from the tables' properties.
  static std::map<int, LevelFilterStats> FilterStatsByLevel(rocksdb::DB* db) {
    rocksdb::ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(&meta);
    std::map<std::string, int> level_of;  // file name -> level
    for (const auto& level : meta.levels) {
      for (const auto& f : level.files) level_of[f.name.substr(f.name.rfind('/') + 1)] = level.level;
    }
    rocksdb::TablePropertiesCollection props;
    EXPECT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
    std::map<int, LevelFilterStats> stats;
    for (const auto& p : props) {
      const auto it = level_of.find(p.first.substr(p.first.rfind('/') + 1));
      if (it == level_of.end()) continue;
      LevelFilterStats& s = stats[it->second];
      ++s.files;
      s.entries += p.second->num_entries;
      s.filter_bytes += p.second->filter_size;
    }
    return stats;
  }

  static double TotalBitsPerKey(const std::map<int, LevelFilterStats>& stats) {
    uint64_t entries = 0, bytes = 0;
    for (const auto& s : stats) {
      entries += s.second.entries;
      bytes += s.second.filter_bytes;
    }
    return 8.0 * bytes / std::max<uint64_t>(entries, 1);
  }

  static void ExpectAllFound(rocksdb::DB* db, uint64_t num_keys) {
    std::string value;
    for (uint64_t k = 0; k < num_keys; ++k) {
      ASSERT_TRUE(db->Get({}, KeyAt(k), &value).ok()) << KeyAt(k);
      ASSERT_EQ(value, ValueOf(k));
    }
  }

  // Looks up absent keys between the first `key_range` written ones (all
  // must be NotFound); returns the filters' false
  // positives per lookup, summed over every filter probed, and prints them
  // per level against the model FPR for that level's bits/key. `per_level`
  // gets each level's {false positives, probes}.
  static double FalsePositivesPerLookup(
      rocksdb::DB* db, const rocksdb::Options& options, FilterType type,
      const std::map<int, LevelFilterStats>& stats,
      std::map<int, std::pair<uint64_t, uint64_t>>* per_level = nullptr,
      uint64_t key_range = kNumKeys) {
    const uint64_t useful0 = test::Ticker(options, rocksdb::BLOOM_FILTER_USEFUL);
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
    rocksdb::get_perf_context()->Reset();
    rocksdb::get_perf_context()->ClearPerLevelPerfContext();
    rocksdb::get_perf_context()->EnablePerLevelPerfContext();
    std::string value;
    for (uint64_t i = 0; i < kNumAbsent; ++i) {
      EXPECT_TRUE(db->Get({}, AbsentKeyAt((i * 7) % key_range), &value).IsNotFound());
    }
    uint64_t fps = 0;
    for (const auto& lv : *rocksdb::get_perf_context()->level_to_perf_context) {
      const auto& c = lv.second;
      const uint64_t fp = c.bloom_filter_full_positive - c.bloom_filter_full_true_positive;
      fps += fp;
      const uint64_t probes = fp + c.bloom_filter_useful;
      if (per_level) (*per_level)[static_cast<int>(lv.first)] = {fp, probes};
      const auto st = stats.find(static_cast<int>(lv.first));
      const double bits = st == stats.end() ? 0 : st->second.BitsPerKey();
      // A level's files are probed about equally often; L0's probes are
      // spread over its files.
      std::printf("  L%u: %.2f bits/key, %llu probes, FPR %.4f%% (model %.4f%%)\n", lv.first,
                  bits, static_cast<unsigned long long>(probes),
                  probes ? 100.0 * fp / probes : 0.0,
                  bits >= MinBitsPerKey(type) ? 100 * ExpectedFprAtScale({type, bits}) : 0.0);
    }
    rocksdb::get_perf_context()->DisablePerLevelPerfContext();
    rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
    EXPECT_GT(test::Ticker(options, rocksdb::BLOOM_FILTER_USEFUL) - useful0, kNumAbsent / 2)
        << "filters not in effect?";
    return static_cast<double>(fps) / kNumAbsent;
  }

  test::TempDir dir_;
};

}  // namespace test
}  // namespace sstfilter
