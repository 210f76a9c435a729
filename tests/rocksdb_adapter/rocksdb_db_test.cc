// Real RocksDB databases in temporary directories, one run per sstfilter
// policy: everything written is found, absent keys are answered by the
// filter, across flushes, compaction, prefix extractors, partitioned
// filters, cached filter blocks, OPTIONS-file reopen and ingestion.

#include <rocksdb/filter_policy.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/utilities/options_util.h>
#include <rocksdb/version.h>
#include <sstfilter/sstfilter.h>

#include "rocksdb_adapter/db_open.h"
#include "rocksdb_test_util.h"

namespace sstfilter {
namespace {

using test::AbsentKeyAt;
using test::KeyAt;
using test::Ticker;

constexpr uint64_t kNumKeys = 200000;
constexpr uint64_t kNumAbsent = 20000;

class RocksDBTest : public ::testing::TestWithParam<std::string> {
 protected:
  // Options with the policy under test, loaded from its id as a user would.
  rocksdb::Options MakeOptions(rocksdb::BlockBasedTableOptions table = {}) {
    rocksdb::ConfigOptions config;
    std::shared_ptr<const rocksdb::FilterPolicy> policy;
    EXPECT_TRUE(rocksdb::FilterPolicy::CreateFromString(config, GetParam(), &policy).ok());
    // RocksDB turns an unregistered id into a null policy without an error.
    EXPECT_NE(policy, nullptr) << GetParam() << " is not registered";
    EXPECT_TRUE(IsSstFilterPolicy(policy.get()));
    table.filter_policy = policy;
    rocksdb::Options options;
    options.create_if_missing = true;
    options.statistics = rocksdb::CreateDBStatistics();
    options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    return options;
  }

  rocksdb::DB* Open(const rocksdb::Options& options) {
    std::unique_ptr<rocksdb::DB> db;
    const rocksdb::Status s = sstfilter::OpenDB(options, dir_.path(), &db);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return db.release();
  }

  // Writes kNumKeys keys in four flushes, then compacts everything.
  void Fill(rocksdb::DB* db) {
    rocksdb::WriteOptions wo;
    wo.disableWAL = true;
    for (uint64_t i = 0; i < kNumKeys; ++i) {
      // Shuffled order, so every flush spans the whole key range.
      const uint64_t k = (i * 7919) % kNumKeys;
      ASSERT_TRUE(db->Put(wo, KeyAt(k), "v" + std::to_string(k)).ok());
      if ((i + 1) % (kNumKeys / 4) == 0) {
        ASSERT_TRUE(db->Flush({}).ok());
      }
    }
    ASSERT_TRUE(db->CompactRange({}, nullptr, nullptr).ok());
  }

  void ExpectAllFoundWithGetAndMultiGet(rocksdb::DB* db, uint64_t num_keys) {
    std::string value;
    for (uint64_t i = 0; i < num_keys; ++i) {
      ASSERT_TRUE(db->Get({}, KeyAt(i), &value).ok()) << KeyAt(i);
      ASSERT_EQ(value, "v" + std::to_string(i));
    }
    constexpr size_t kBatch = 64;
    for (uint64_t base = 0; base < num_keys; base += kBatch) {
      std::vector<std::string> storage;
      for (uint64_t i = base; i < std::min(num_keys, base + kBatch); ++i) {
        storage.push_back(KeyAt(i));
      }
      std::vector<rocksdb::Slice> keys(storage.begin(), storage.end());
      std::vector<rocksdb::PinnableSlice> values(keys.size());
      std::vector<rocksdb::Status> statuses(keys.size());
      db->MultiGet({}, db->DefaultColumnFamily(), keys.size(), keys.data(),
                   values.data(), statuses.data());
      for (size_t j = 0; j < keys.size(); ++j) {
        ASSERT_TRUE(statuses[j].ok()) << storage[j] << " " << statuses[j].ToString();
      }
    }
  }

  // Absent keys are not found, and the filter (not a data block) said so
  // for nearly all of them.
  void ExpectAbsentKeysFiltered(rocksdb::DB* db, const rocksdb::Options& options) {
    const uint64_t useful_before = Ticker(options, rocksdb::BLOOM_FILTER_USEFUL);
    std::string value;
    for (uint64_t i = 0; i < kNumAbsent; ++i) {
      ASSERT_TRUE(db->Get({}, AbsentKeyAt(i * 7), &value).IsNotFound());
    }
    const uint64_t useful = Ticker(options, rocksdb::BLOOM_FILTER_USEFUL) - useful_before;
    // Every sstfilter policy here is configured for an FPR under 2%.
    EXPECT_GE(useful, kNumAbsent * 98 / 100) << "filter not in effect?";
  }

  void ExpectTablesCarryOurFilter(rocksdb::DB* db) {
    rocksdb::TablePropertiesCollection props;
    ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
    ASSERT_FALSE(props.empty());
    const std::string name = GetParam().substr(0, GetParam().find(':'));
    for (const auto& p : props) {
      EXPECT_EQ(p.second->filter_policy_name, name) << p.first;
      EXPECT_GT(p.second->filter_size, 0u) << p.first;
    }
  }

  test::TempDir dir_;
};

TEST_P(RocksDBTest, FlushesAndCompactionKeepEveryKey) {
  rocksdb::BlockBasedTableOptions table;
  table.detect_filter_construct_corruption = true;  // MaybePostVerify on
  const rocksdb::Options options = MakeOptions(table);
  std::unique_ptr<rocksdb::DB> db(Open(options));
  Fill(db.get());
  ExpectTablesCarryOurFilter(db.get());
  ExpectAllFoundWithGetAndMultiGet(db.get(), kNumKeys);
  ExpectAbsentKeysFiltered(db.get(), options);
}

// Seeks that a prefix filter ruled out. From 8.3 RocksDB counts them per
// level kind; before, with point lookups' prefix checks.
uint64_t SeeksFiltered(const rocksdb::Options& options) {
#if ROCKSDB_MAJOR > 8 || (ROCKSDB_MAJOR == 8 && ROCKSDB_MINOR >= 3)
  return Ticker(options, rocksdb::NON_LAST_LEVEL_SEEK_FILTERED) +
         Ticker(options, rocksdb::LAST_LEVEL_SEEK_FILTERED);
#else
  return Ticker(options, rocksdb::BLOOM_FILTER_PREFIX_USEFUL);
#endif
}

TEST_P(RocksDBTest, PrefixExtractor) {
  rocksdb::BlockBasedTableOptions table;
  table.whole_key_filtering = true;
  rocksdb::Options options = MakeOptions(table);
  // "key000000123": 1000 keys a prefix.
  options.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(12));
  std::unique_ptr<rocksdb::DB> db(Open(options));
  Fill(db.get());
  ExpectAllFoundWithGetAndMultiGet(db.get(), kNumKeys);
  ExpectAbsentKeysFiltered(db.get(), options);
  // Prefix seeks find every key of a present prefix and none of an absent
  // one, which the prefix filter rules out.
  rocksdb::ReadOptions ro;
  ro.prefix_same_as_start = true;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro));
  int found = 0;
  for (it->Seek("key000000123"); it->Valid(); it->Next()) ++found;
  EXPECT_EQ(found, 1000);
  const uint64_t prefix_useful = SeeksFiltered(options);
  for (int p = 0; p < 100; ++p) {
    // "key00000012x": sorts between present keys, so the table is consulted.
    it->Seek("key000000" + std::to_string(10 + p % 89) + "x");
    EXPECT_FALSE(it->Valid());
  }
  // RocksDB consults the prefix filter on only some of these seeks (it
  // skips it when the iterator is already positioned in the right block),
  // so require that our filter answered, not how often.
  EXPECT_GT(SeeksFiltered(options) - prefix_useful, 0u);
}

TEST_P(RocksDBTest, PartitionedFilters) {
  rocksdb::BlockBasedTableOptions table;
  table.partition_filters = true;
  table.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  table.metadata_block_size = 2048;  // many partitions
  table.detect_filter_construct_corruption = true;
  const rocksdb::Options options = MakeOptions(table);
  std::unique_ptr<rocksdb::DB> db(Open(options));
  Fill(db.get());
  rocksdb::TablePropertiesCollection props;
  ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  for (const auto& p : props) EXPECT_GT(p.second->index_partitions, 1u);
  ExpectAllFoundWithGetAndMultiGet(db.get(), kNumKeys);
  ExpectAbsentKeysFiltered(db.get(), options);
}

TEST_P(RocksDBTest, CachedIndexAndFilterBlocks) {
  rocksdb::BlockBasedTableOptions table;
  table.cache_index_and_filter_blocks = true;
  table.block_cache = rocksdb::NewLRUCache(1 << 20);  // small: data blocks evicted
  const rocksdb::Options options = MakeOptions(table);
  std::unique_ptr<rocksdb::DB> db(Open(options));
  Fill(db.get());
  ExpectAllFoundWithGetAndMultiGet(db.get(), kNumKeys);
  ExpectAbsentKeysFiltered(db.get(), options);
  EXPECT_GT(Ticker(options, rocksdb::BLOCK_CACHE_FILTER_ADD), 0u);
}

TEST_P(RocksDBTest, ReopenFromPersistedOptionsFile) {
  {
    const rocksdb::Options options = MakeOptions();
    std::unique_ptr<rocksdb::DB> db(Open(options));
    Fill(db.get());
  }
  rocksdb::ConfigOptions config;
  rocksdb::DBOptions db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  ASSERT_TRUE(rocksdb::LoadLatestOptions(config, dir_.path(), &db_options, &cfs).ok());
  ASSERT_EQ(cfs.size(), 1u);
  const auto* table = cfs[0].options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  ASSERT_NE(table, nullptr);
  ASSERT_NE(table->filter_policy, nullptr) << "policy dropped on reload";
  EXPECT_EQ(std::string(table->filter_policy->Name()), GetParam().substr(0, GetParam().find(':')));
  // Same policy: same id and bits_per_key as the one the DB was made with.
  const rocksdb::Options fresh = MakeOptions();
  const auto* fresh_table = fresh.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  std::string mismatch;
  EXPECT_TRUE(table->filter_policy->AreEquivalent(config, fresh_table->filter_policy.get(), &mismatch))
      << mismatch;

  rocksdb::Options options(db_options, cfs[0].options);
  options.statistics = rocksdb::CreateDBStatistics();
  std::unique_ptr<rocksdb::DB> db(Open(options));
  ExpectAllFoundWithGetAndMultiGet(db.get(), kNumKeys);
  ExpectAbsentKeysFiltered(db.get(), options);
}

TEST_P(RocksDBTest, SstFileWriterAndIngestion) {
  const rocksdb::Options options = MakeOptions();
  const std::string sst = dir_.path() + "/ingest.sst";
  {
    rocksdb::SstFileWriter writer({}, options);
    ASSERT_TRUE(writer.Open(sst).ok());
    for (uint64_t i = 0; i < kNumKeys; ++i) {
      ASSERT_TRUE(writer.Put(KeyAt(i), "v" + std::to_string(i)).ok());
    }
    ASSERT_TRUE(writer.Finish().ok());
  }
  std::unique_ptr<rocksdb::DB> db(Open(options));
  ASSERT_TRUE(db->IngestExternalFile({sst}, {}).ok());
  ExpectTablesCarryOurFilter(db.get());
  ExpectAllFoundWithGetAndMultiGet(db.get(), kNumKeys);
  ExpectAbsentKeysFiltered(db.get(), options);
}

INSTANTIATE_TEST_SUITE_P(Policies, RocksDBTest,
                         ::testing::Values("sstfilter.bloom:10", "sstfilter.cuckoo:12",
                                           "sstfilter.cuckoo_plain:10",
                                           "sstfilter.cuckoo_semisorted:16", "sstfilter.fuse:12",
                                           "sstfilter.burr:10"),
                         [](const auto& info) {
                           std::string name = info.param.substr(10);
                           for (char& c : name) if (c == ':' || c == '.') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace sstfilter
