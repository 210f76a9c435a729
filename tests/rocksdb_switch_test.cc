// Changing the filter policy of a live DB, in each direction: every key
// must read back after each switch, and the SSTs written under each
// policy keep their own filter (docs/policy_switches.md says which are
// filtered when). The last case runs stock `ldb` without the plugin, where
// RocksDB silently runs with no filter.

#include <rocksdb/filter_policy.h>
#include <rocksdb/utilities/options_util.h>
#include <sstfilter/sstfilter.h>

#include <cstdio>
#include <map>

#include "rocksdb_test_util.h"

namespace sstfilter {
namespace {

using test::AbsentKeyAt;
using test::KeyAt;
using test::Ticker;

constexpr uint64_t kBatch = 30000;

class PolicySwitchTest : public ::testing::Test {
 protected:
  // Opens the DB with `policy` (nullptr: no filter), writes batch `batch`
  // of keys and flushes it into its own SST.
  void WriteBatchWith(std::shared_ptr<const rocksdb::FilterPolicy> policy, uint64_t batch) {
    auto db = Open(policy);
    for (uint64_t i = batch * kBatch; i < (batch + 1) * kBatch; ++i) {
      ASSERT_TRUE(db->Put({}, KeyAt(i), "v" + std::to_string(i)).ok());
    }
    ASSERT_TRUE(db->Flush({}).ok());
  }

  std::unique_ptr<rocksdb::DB> Open(std::shared_ptr<const rocksdb::FilterPolicy> policy) {
    rocksdb::BlockBasedTableOptions table;
    table.filter_policy = std::move(policy);
    options_ = rocksdb::Options();
    options_.create_if_missing = true;
    options_.disable_auto_compactions = true;  // keep each batch's SST
    options_.statistics = rocksdb::CreateDBStatistics();
    options_.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    rocksdb::DB* db = nullptr;
    EXPECT_TRUE(rocksdb::DB::Open(options_, dir_.path(), &db).ok());
    return std::unique_ptr<rocksdb::DB>(db);
  }

  // Reads back every key of batches [0, batches); returns how many
  // absent-key lookups the filters answered.
  uint64_t ReadBack(rocksdb::DB* db, uint64_t batches) {
    std::string value;
    for (uint64_t i = 0; i < batches * kBatch; ++i) {
      EXPECT_TRUE(db->Get({}, KeyAt(i), &value).ok()) << KeyAt(i);
      if (value != "v" + std::to_string(i)) {
        ADD_FAILURE() << KeyAt(i);
        break;
      }
    }
    const uint64_t before = Ticker(options_, rocksdb::BLOOM_FILTER_USEFUL);
    for (uint64_t i = 0; i < batches * kBatch; i += 10) {
      EXPECT_TRUE(db->Get({}, AbsentKeyAt(i), &value).IsNotFound());
    }
    return Ticker(options_, rocksdb::BLOOM_FILTER_USEFUL) - before;
  }

  // filter_policy_name of each SST, by file.
  std::map<std::string, std::string> FilterOfEachTable(rocksdb::DB* db) {
    rocksdb::TablePropertiesCollection props;
    EXPECT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
    std::map<std::string, std::string> out;
    for (const auto& p : props) out[p.first] = p.second->filter_policy_name;
    return out;
  }

  static size_t Count(const std::map<std::string, std::string>& m, const std::string& v) {
    size_t n = 0;
    for (const auto& e : m) n += e.second == v;
    return n;
  }

  test::TempDir dir_;
  rocksdb::Options options_;
};

TEST_F(PolicySwitchTest, BuiltinBloomToSstFilterAndBack) {
  std::shared_ptr<const rocksdb::FilterPolicy> builtin(rocksdb::NewBloomFilterPolicy(10));
  WriteBatchWith(builtin, 0);
  WriteBatchWith(NewCuckooFilterPolicy(12), 1);
  {
    auto db = Open(NewCuckooFilterPolicy(12));
    const auto tables = FilterOfEachTable(db.get());
    EXPECT_EQ(Count(tables, "bloomfilter"), 1u);
    EXPECT_EQ(Count(tables, "sstfilter.cuckoo"), 1u);
    // Both SSTs are filtered: RocksDB reads its built-in filters whatever
    // the configured policy, and ours through sstfilter.
    EXPECT_GT(ReadBack(db.get(), 2), kBatch / 10 * 2 * 95 / 100);
    // A forced compaction rewrites everything under the current policy.
    rocksdb::CompactRangeOptions cro;
    cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    ASSERT_TRUE(db->CompactRange(cro, nullptr, nullptr).ok());
    for (const auto& t : FilterOfEachTable(db.get())) EXPECT_EQ(t.second, "sstfilter.cuckoo");
    EXPECT_GT(ReadBack(db.get(), 2), kBatch / 10 * 2 * 95 / 100);
  }
  // And back to the built-in Bloom: the sstfilter SST (batches 0-1) is
  // read without a filter, batch 2's built-in SST with one.
  WriteBatchWith(builtin, 2);
  auto db = Open(builtin);
  const uint64_t useful = ReadBack(db.get(), 3);
  EXPECT_GT(useful, kBatch / 10 * 9 / 10);   // batch 2's range
  EXPECT_LT(useful, kBatch / 10 * 2);        // not batches 0-1
}

TEST_F(PolicySwitchTest, SstFilterBloomToCuckooKeepsEveryFilter) {
  WriteBatchWith(NewBloomFilterPolicy(10), 0);
  WriteBatchWith(NewCuckooFilterPolicy(12), 1);
  auto db = Open(NewCuckooFilterPolicy(12));
  const auto tables = FilterOfEachTable(db.get());
  EXPECT_EQ(Count(tables, "sstfilter.bloom"), 1u);
  EXPECT_EQ(Count(tables, "sstfilter.cuckoo"), 1u);
  // One compatibility family: the Bloom SST's filter is still used.
  EXPECT_GT(ReadBack(db.get(), 2), kBatch / 10 * 2 * 95 / 100);
}

#ifdef SSTFILTER_LDB
// Runs stock ldb on the DB, with or without the plugin preloaded, and
// returns how many keys `scan` printed (-1 if it failed).
long LdbScanCount(const std::string& dir, bool preload) {
  const std::string cmd = std::string(preload ? "LD_PRELOAD=" SSTFILTER_SO " " : "") +
                          SSTFILTER_LDB " --db=" + dir + " scan 2>/dev/null | wc -l";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return -1;
  long n = -1;
  if (fscanf(p, "%ld", &n) != 1) n = -1;
  return pclose(p) == 0 ? n : -1;
}

TEST_F(PolicySwitchTest, PluginNotLoadedReadsEverythingWithoutFilters) {
  WriteBatchWith(NewCuckooFilterPolicy(12), 0);
  WriteBatchWith(NewBloomFilterPolicy(10), 1);
  // The DB's OPTIONS file names sstfilter policies. Stock ldb without the
  // plugin loads them as "no filter" and still reads every key.
  EXPECT_EQ(LdbScanCount(dir_.path(), /*preload=*/false), static_cast<long>(2 * kBatch));
  EXPECT_EQ(LdbScanCount(dir_.path(), /*preload=*/true), static_cast<long>(2 * kBatch));
  // Same thing in-process: options naming an unregistered id load as null.
  rocksdb::ConfigOptions config;
  rocksdb::ColumnFamilyOptions cf;
  ASSERT_TRUE(rocksdb::GetColumnFamilyOptionsFromString(
                  config, {}, "block_based_table_factory={filter_policy=unloaded.cuckoo:12}", &cf)
                  .ok());
  EXPECT_TRUE(CheckFilterPolicyInEffect(cf).IsInvalidArgument());
  auto db = Open(nullptr);
  EXPECT_EQ(ReadBack(db.get(), 2), 0u) << "no filter is read without a policy";
}
#endif

}  // namespace
}  // namespace sstfilter
