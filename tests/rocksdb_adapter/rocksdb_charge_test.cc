// Filter construction charged to the block cache, as the built-in filters
// are when the table options charge CacheEntryRole::kFilterConstruction
// (rocksdb_adapter/construction_charge.h): the charge shows in the cache
// while a builder holds keys and is gone after Finish; a cache that cannot
// make room gets a whole Bloom filter instead of the planned kind, never a
// partial filter; and a real DB behind such a cache flushes, finds every
// key and still filters absent ones.

#include <gtest/gtest.h>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/version.h>
#include <sstfilter/sstfilter.h>

#include <memory>
#include <string>

#include "filters/bloom.h"
#include "filters/burr_filter.h"
#include "filters/reader_dispatch.h"
#include "rocksdb_adapter/construction_charge.h"  // the Cache class on every release
#include "rocksdb_adapter/db_open.h"
#include "rocksdb_adapter/rocksdb_internal.h"
#include "rocksdb_adapter/rocksdb_test_util.h"
#include "rocksdb_adapter/slice_hash.h"

#if ROCKSDB_MAJOR > 7 || (ROCKSDB_MAJOR == 7 && ROCKSDB_MINOR >= 3)

namespace sstfilter {
namespace {

void ChargeConstruction(rocksdb::BlockBasedTableOptions* table) {
  table->cache_usage_options.options_overrides.insert(
      {rocksdb::CacheEntryRole::kFilterConstruction,
       {/*.charged = */ rocksdb::CacheEntryRoleOptions::Decision::kEnabled}});
}

class ChargeTest : public ::testing::Test {
 protected:
  std::unique_ptr<rocksdb::FilterBitsBuilder> NewBuilder(const std::string& name,
                                                         std::shared_ptr<rocksdb::Cache> cache,
                                                         bool charge) {
    EXPECT_TRUE(NewFilterPolicy(name, 10, &policy_).ok());
    table_.block_cache = std::move(cache);
    if (charge) ChargeConstruction(&table_);
    return std::unique_ptr<rocksdb::FilterBitsBuilder>(
        policy_->GetBuilderWithContext(rocksdb::FilterBuildingContext(table_)));
  }

  // The kind of the finished filter, and whether it matches every key.
  static FilterKind FinishAndCheck(rocksdb::FilterBitsBuilder* builder, int num_keys) {
    std::unique_ptr<const char[]> buf;
    const rocksdb::Slice filter = builder->Finish(&buf);
    ParsedFilter parsed;
    EXPECT_TRUE(ParseFilter(filter.data(), filter.size(), &parsed, ChecksumCheck::kVerify));
    const auto reader = NewFilterReader(filter.data(), filter.size());
    int missed = 0;
    for (int i = 0; i < num_keys; ++i) missed += reader->MayMatch(KeyHash(rocksdb::Slice(test::KeyAt(i)))) ? 0 : 1;
    EXPECT_EQ(missed, 0);
    return parsed.kind;
  }

  std::shared_ptr<const rocksdb::FilterPolicy> policy_;
  rocksdb::BlockBasedTableOptions table_;
};

TEST_F(ChargeTest, HeldKeysAreChargedUntilFinish) {
  auto cache = rocksdb::NewLRUCache(64 << 20, /*num_shard_bits=*/0);
  auto builder = NewBuilder("burr", cache, /*charge=*/true);
  constexpr int kKeys = 200000;
  for (int i = 0; i < kKeys; ++i) builder->AddKey(test::KeyAt(i));
  // At least the 8-byte hash of every key is held, and charged.
  EXPECT_GE(cache->GetPinnedUsage(), size_t{8} * kKeys);
  EXPECT_EQ(FinishAndCheck(builder.get(), kKeys), kBurrKind);
  EXPECT_EQ(cache->GetPinnedUsage(), 0u);
}

TEST_F(ChargeTest, NothingIsChargedUnlessTheTableOptionsAskForIt) {
  auto cache = rocksdb::NewLRUCache(64 << 20, /*num_shard_bits=*/0);
  auto builder = NewBuilder("burr", cache, /*charge=*/false);
  for (int i = 0; i < 200000; ++i) builder->AddKey(test::KeyAt(i));
  EXPECT_EQ(cache->GetPinnedUsage(), 0u);
  EXPECT_EQ(FinishAndCheck(builder.get(), 200000), kBurrKind);
}

TEST_F(ChargeTest, AFullStrictCacheGetsAWholeBloomFilter) {
  // 200k keys: 1.6 MB of hashes (charged past the limit: they are held
  // either way), then about 4 MB of banding the cache cannot make room for.
  for (const char* name : {"burr", "fuse", "cuckoo"}) {
    SCOPED_TRACE(name);
    auto cache = rocksdb::NewLRUCache(1 << 20, /*num_shard_bits=*/0,
                                      /*strict_capacity_limit=*/true);
    auto builder = NewBuilder(name, cache, /*charge=*/true);
    for (int i = 0; i < 200000; ++i) builder->AddKey(test::KeyAt(i));
    EXPECT_EQ(FinishAndCheck(builder.get(), 200000), kBloomKind);
    EXPECT_EQ(cache->GetPinnedUsage(), 0u);
  }
}

TEST_F(ChargeTest, ARefusedChargeIsTriedAgainOnlyWhenTheKeysGrow) {
  // Every charge takes one of the cache's ids (ConstructionCharge::Add), so
  // the ids a build used count its inserts into the cache: one per growth
  // of the hashes' array (about 20 for 200k keys), however many keys.
  auto cache = rocksdb::NewLRUCache(64 << 10, /*num_shard_bits=*/0,
                                    /*strict_capacity_limit=*/true);
  auto builder = NewBuilder("burr", cache, /*charge=*/true);
  const uint64_t first = cache->NewId();
  for (int i = 0; i < 200000; ++i) builder->AddKey(test::KeyAt(i));
  const uint64_t inserts = cache->NewId() - first - 1;
  EXPECT_GT(inserts, 0u);
  EXPECT_LT(inserts, 64u);
  EXPECT_EQ(FinishAndCheck(builder.get(), 200000), kBloomKind);
}

TEST_F(ChargeTest, AStrictCacheWithRoomGetsThePlannedKind) {
  auto cache = rocksdb::NewLRUCache(64 << 20, /*num_shard_bits=*/0,
                                    /*strict_capacity_limit=*/true);
  auto builder = NewBuilder("burr", cache, /*charge=*/true);
  for (int i = 0; i < 200000; ++i) builder->AddKey(test::KeyAt(i));
  EXPECT_EQ(FinishAndCheck(builder.get(), 200000), kBurrKind);
}

// False positives over `absent` lookups in a DB of `keys` keys flushed to
// one SST through a strict block cache of `cache_bytes`, charged.
double DbFalsePositiveRate(size_t cache_bytes, int keys, int absent) {
  test::TempDir dir;
  rocksdb::Options options;
  options.create_if_missing = true;
  options.statistics = rocksdb::CreateDBStatistics();
  options.write_buffer_size = 64 << 20;  // one memtable, one SST
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(cache_bytes, /*num_shard_bits=*/0,
                                           /*strict_capacity_limit=*/true);
  ChargeConstruction(&table);
  std::shared_ptr<const rocksdb::FilterPolicy> policy;
  EXPECT_TRUE(NewFilterPolicy("burr", 10, &policy).ok());
  table.filter_policy = policy;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  std::unique_ptr<rocksdb::DB> db;
  rocksdb::Status s = OpenDB(options, dir.path(), &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return 1;
  for (int i = 0; i < keys; ++i) EXPECT_TRUE(db->Put({}, test::KeyAt(i), "v").ok());
  s = db->Flush({});
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::string value;
  int missing = 0;
  for (int i = 0; i < keys; ++i) missing += db->Get({}, test::KeyAt(i), &value).ok() ? 0 : 1;
  EXPECT_EQ(missing, 0);
  const uint64_t positive_before = test::Ticker(options, rocksdb::BLOOM_FILTER_FULL_POSITIVE);
  for (int i = 0; i < absent; ++i) {
    EXPECT_TRUE(db->Get({}, test::AbsentKeyAt(i), &value).IsNotFound());
  }
  const uint64_t false_positive =
      test::Ticker(options, rocksdb::BLOOM_FILTER_FULL_POSITIVE) - positive_before;
  return static_cast<double>(false_positive) / absent;
}

TEST(ChargeDbTest, ARefusedBuildStillFiltersAndFindsEveryKey) {
  // 300k keys need about 6 MB of working memory: refused by a strict 2 MB
  // cache (a Bloom filter, about 1% FPR at 10 bits/key), made room for by
  // a strict 64 MB one (the bumped ribbon filter, about 0.1%).
  const double refused = DbFalsePositiveRate(2 << 20, 300000, 100000);
  const double roomy = DbFalsePositiveRate(64 << 20, 300000, 100000);
  EXPECT_GT(refused, 0.004);
  EXPECT_LT(refused, 0.02);
  EXPECT_LT(roomy, 0.003);
}

}  // namespace
}  // namespace sstfilter

#else
TEST(ChargeTest, NeedsRocksDB73) { GTEST_SKIP() << "cache_usage_options is from RocksDB 7.3"; }
#endif
