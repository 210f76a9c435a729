// A damaged filter block in an SST file, as a bad disk would leave it: the
// sstfilter reader no longer checksums the whole filter on every load
// (RocksDB's block checksum covers the same bytes, docs/design/safety.md), so this
// checks that RocksDB's check catches the damage and that every key is
// still found: the filter is dropped ("may match"), never trusted.

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <sstfilter/sstfilter.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "rocksdb_adapter/db_open.h"
#include "rocksdb_adapter/rocksdb_internal.h"
#include "util/db_test_util.h"

namespace sstfilter {
namespace {

using test::AbsentKeyAt;
using test::KeyAt;
constexpr uint64_t kKeys = 20000;

class DamagedFilterTest : public ::testing::TestWithParam<const char*> {
 protected:
  std::unique_ptr<rocksdb::DB> Open() {
    rocksdb::BlockBasedTableOptions table;
    table.filter_policy = policy_;
    table.cache_index_and_filter_blocks = cache_filters_;
    options_ = rocksdb::Options();
    options_.create_if_missing = true;
    options_.statistics = rocksdb::CreateDBStatistics();
    options_.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    std::unique_ptr<rocksdb::DB> db;
    EXPECT_TRUE(sstfilter::OpenDB(options_, dir_.path(), &db).ok());
    return db;
  }

  // The bytes our builder makes for the keys the SST holds: the same as
  // the SST's filter block (the build is deterministic, and RocksDB stores
  // filter blocks uncompressed).
  std::string ExpectedFilter() {
    rocksdb::BlockBasedTableOptions table;
    std::unique_ptr<rocksdb::FilterBitsBuilder> builder(
        policy_->GetBuilderWithContext(rocksdb::FilterBuildingContext(table)));
    for (uint64_t i = 0; i < kKeys; ++i) builder->AddKey(KeyAt(i));
    std::unique_ptr<const char[]> buf;
    return builder->Finish(&buf).ToString();
  }

  void Check();
  uint64_t Useful() { return options_.statistics->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL); }

  test::TempDir dir_;
  rocksdb::Options options_;
  std::shared_ptr<const rocksdb::FilterPolicy> policy_;
  bool cache_filters_ = false;
};

TEST_P(DamagedFilterTest, RocksDBsBlockChecksumCatchesItAndEveryKeyIsFound) {
  Check();
}

TEST_P(DamagedFilterTest, SameWithFilterBlocksInTheBlockCache) {
  cache_filters_ = true;
  Check();
}

void DamagedFilterTest::Check() {
  ASSERT_TRUE(NewFilterPolicy(GetParam(), 12, &policy_).ok());
  {
    auto db = Open();
    for (uint64_t i = 0; i < kKeys; ++i) ASSERT_TRUE(db->Put({}, KeyAt(i), "v").ok());
    ASSERT_TRUE(db->Flush({}).ok());
  }
  // Find the filter in the one SST and flip one bit in its middle.
  std::string sst;
  for (const auto& e : std::filesystem::directory_iterator(dir_.path())) {
    if (e.path().extension() == ".sst") sst = e.path();
  }
  ASSERT_FALSE(sst.empty());
  std::string bytes;
  {
    std::ifstream in(sst, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string filter = ExpectedFilter();
  const size_t at = bytes.find(filter);
  ASSERT_NE(at, std::string::npos) << "the SST's filter block is not where the test looks";
  bytes[at + filter.size() / 2] ^= 0x01;
  {
    std::ofstream out(sst, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  auto db = Open();
  std::string value;
  uint64_t missing = 0;
  for (uint64_t i = 0; i < kKeys; ++i) missing += !db->Get({}, KeyAt(i), &value).ok();
  EXPECT_EQ(missing, 0u) << "keys lost to the damaged filter";
  for (uint64_t i = 0; i < kKeys; i += 10) {
    EXPECT_TRUE(db->Get({}, AbsentKeyAt(i), &value).IsNotFound());
  }
  EXPECT_EQ(Useful(), 0u) << "the damaged filter was used";
}

INSTANTIATE_TEST_SUITE_P(Policies, DamagedFilterTest, ::testing::Values("bloom", "cuckoo"));

}  // namespace
}  // namespace sstfilter
