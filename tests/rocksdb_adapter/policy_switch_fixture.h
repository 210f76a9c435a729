// The fixture of the policy-switch and migration tests on real DBs
// (rocksdb_switch_test, rocksdb_migrate_test). Batch b of keys is flushed
// into its own level-0 SST, the batches' key ranges do not overlap, and
// there are at least kTables of them: RocksDB checks level-0 files' key
// ranges only when there are more than 3 (with fewer, every Get visits
// every file). So an absent key inside batch b's range visits that SST
// alone, and the lookups its filter rules out are the
// rocksdb.bloom.filter.useful counts for those keys.

#pragma once

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <sstfilter/sstfilter.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "rocksdb_adapter/db_open.h"
#include "rocksdb_test_util.h"
#include "util/skipping_sleep_env.h"

namespace sstfilter {

using Policy = std::shared_ptr<const rocksdb::FilterPolicy>;

inline constexpr uint64_t kBatch = 30000;
inline constexpr uint64_t kTables = 4;
inline constexpr uint64_t kAbsentPerBatch = kBatch / 10;
// A filtered SST rules out nearly every absent key (FPR 1-2% here); an
// unfiltered one none.
inline constexpr uint64_t kFiltered = kAbsentPerBatch * 9 / 10;

inline Policy Builtin() { return Policy(rocksdb::NewBloomFilterPolicy(10)); }
inline Policy Ribbon() { return Policy(rocksdb::NewRibbonFilterPolicy(10)); }
inline Policy Ours(const char* type, double bits, Compat compat = Compat::kSstfilter) {
  Policy p;
  EXPECT_TRUE(NewFilterPolicy(type, bits, compat, &p).ok());
  return p;
}

class PolicySwitchTest : public ::testing::Test {
 protected:
  // Opens the DB with `policy` (nullptr: no filter), writes batch `batch`
  // of keys and flushes it into its own SST.
  void WriteBatchWith(Policy policy, uint64_t batch) {
    auto db = Open(policy);
    for (uint64_t i = batch * kBatch; i < (batch + 1) * kBatch; ++i) {
      ASSERT_TRUE(db->Put({}, test::KeyAt(i), "v" + std::to_string(i)).ok());
    }
    ASSERT_TRUE(db->Flush({}).ok());
  }

  std::unique_ptr<rocksdb::DB> Open(Policy policy) {
    rocksdb::BlockBasedTableOptions table;
    table.filter_policy = std::move(policy);
    if (partitioned_) {
      table.partition_filters = true;
      table.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
      table.metadata_block_size = 1024;  // several partitions per SST
    }
    options_ = rocksdb::Options();
    options_.create_if_missing = true;
    options_.disable_auto_compactions = true;  // keep each batch's SST
    options_.statistics = rocksdb::CreateDBStatistics();
    options_.env = &env_;
    options_.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    std::unique_ptr<rocksdb::DB> db;
    EXPECT_TRUE(sstfilter::OpenDB(options_, dir_.path(), &db).ok());
    return db;
  }

  // Every key of batches [0, batches) reads back with its value.
  void ReadBack(rocksdb::DB* db, uint64_t batches) {
    std::string value;
    for (uint64_t i = 0; i < batches * kBatch; ++i) {
      EXPECT_TRUE(db->Get({}, test::KeyAt(i), &value).ok()) << test::KeyAt(i);
      if (value != "v" + std::to_string(i)) {
        ADD_FAILURE() << test::KeyAt(i);
        break;
      }
    }
  }

  // Absent-key lookups inside batch `batch`'s range that its SST's filter
  // ruled out.
  uint64_t UsefulIn(rocksdb::DB* db, uint64_t batch) {
    std::string value;
    const uint64_t before = test::Ticker(options_, rocksdb::BLOOM_FILTER_USEFUL);
    for (uint64_t j = 0; j < kAbsentPerBatch; ++j) {
      EXPECT_TRUE(db->Get({}, test::AbsentKeyAt(batch * kBatch + j * 10), &value).IsNotFound());
    }
    return test::Ticker(options_, rocksdb::BLOOM_FILTER_USEFUL) - before;
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

  // One row: batch 0 written under `before`, batches 1 to kTables - 1
  // under `after`, read under `after`. Returns {useful in batch 0's SST,
  // in batch 1's}.
  std::pair<uint64_t, uint64_t> Switch(Policy before, Policy after) {
    WriteBatchWith(before, 0);
    for (uint64_t b = 1; b < kTables; ++b) WriteBatchWith(after, b);
    auto db = Open(after);
    const auto tables = FilterOfEachTable(db.get());
    EXPECT_EQ(tables.size(), kTables);
    EXPECT_GE(Count(tables, before->Name()), 1u);
    EXPECT_GE(Count(tables, after->Name()), kTables - 1);
    ReadBack(db.get(), kTables);
    return {UsefulIn(db.get(), 0), UsefulIn(db.get(), 1)};
  }

  test::SkippingSleepEnv env_;  // outlives every DB the tests open
  test::TempDir dir_;
  rocksdb::Options options_;
  bool partitioned_ = false;
};

}  // namespace sstfilter
