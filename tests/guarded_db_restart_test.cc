// GuardedDB restart: the saved guard is loaded only when it still describes
// the DB; otherwise (writes or ingestion without the guard, damage,
// truncation, another DB's file) it is rebuilt, and no key is ever missed.

#include <rocksdb/sst_file_writer.h>

#include <fstream>
#include <iterator>

#include "guard_test_util.h"

namespace sstfilter {
namespace test {
namespace {

class GuardedDBRestartTest : public ::testing::Test {
 protected:
  std::unique_ptr<GuardedDB> Open(const std::string& path = "") {
    std::unique_ptr<GuardedDB> db;
    EXPECT_TRUE(GuardedDB::Open(options_, CheckedGuard(), path.empty() ? dir_.path() : path, &db)
                    .ok());
    return db;
  }
  void Fill(int n) {
    auto db = Open();
    for (int i = 0; i < n; ++i) ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), KeyAt(i), "v").ok());
    ASSERT_TRUE(db->Close().ok());
  }
  std::string GuardFile() const { return dir_.path() + "/SSTFILTER-GUARD"; }
  std::string ReadGuardFile() const {
    std::ifstream in(GuardFile(), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  void WriteGuardFile(const std::string& bytes) const {
    std::ofstream(GuardFile(), std::ios::binary | std::ios::trunc) << bytes;
  }
  // Reopens and checks every key is found and absent ones are ruled out.
  GuardStats Reopen(size_t keys) {
    auto db = Open();
    EXPECT_EQ(ExpectAllKeysFound(db.get()), keys);
    std::string v;
    for (int i = 0; i < 1000; ++i) {
      EXPECT_TRUE(db->Get(rocksdb::ReadOptions(), AbsentKeyAt(i), &v).IsNotFound());
    }
    EXPECT_GE(db->RuledOut(), 980u);
    GuardStats s = db->GetGuardStats();
    EXPECT_EQ(s.guard_errors, 0u);
    EXPECT_TRUE(db->Close().ok());
    return s;
  }
  TempDir dir_;
  rocksdb::Options options_ = GuardTestOptions();
};

TEST_F(GuardedDBRestartTest, CloseSavesOpenLoads) {
  Fill(5000);
  GuardStats s = Reopen(5000);
  EXPECT_TRUE(s.loaded);
  EXPECT_FALSE(s.rebuilt);
  EXPECT_EQ(s.keys, 5000u);
  // The file was consumed by Open and written again by Close.
  s = Reopen(5000);
  EXPECT_TRUE(s.loaded);
}

TEST_F(GuardedDBRestartTest, FirstOpenOfAnExistingDBRebuilds) {
  {
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options_, dir_.path(), &raw).ok());
    for (int i = 0; i < 3000; ++i) ASSERT_TRUE(raw->Put(rocksdb::WriteOptions(), KeyAt(i), "v").ok());
    delete raw;
  }
  GuardStats s = Reopen(3000);
  EXPECT_TRUE(s.rebuilt);
  EXPECT_EQ(s.rebuilt_keys, 3000u);
  EXPECT_EQ(s.rebuild_reason, "no saved guard");
}

TEST_F(GuardedDBRestartTest, WritesWithoutTheGuardForceARebuild) {
  Fill(2000);
  {
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options_, dir_.path(), &raw).ok());
    ASSERT_TRUE(raw->Put(rocksdb::WriteOptions(), KeyAt(5000), "new").ok());
    delete raw;
  }
  GuardStats s = Reopen(2001);
  EXPECT_TRUE(s.rebuilt);
  EXPECT_NE(s.rebuild_reason.find("without the guard"), std::string::npos) << s.rebuild_reason;
}

TEST_F(GuardedDBRestartTest, IngestionWithoutTheGuardForcesARebuild) {
  Fill(2000);
  const std::string sst = dir_.path() + "/../ingest-" + std::to_string(getpid()) + ".sst";
  {
    rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options_);
    ASSERT_TRUE(writer.Open(sst).ok());
    ASSERT_TRUE(writer.Put("zzz-ingested", "v").ok());
    ASSERT_TRUE(writer.Finish().ok());
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options_, dir_.path(), &raw).ok());
    const auto seq = raw->GetLatestSequenceNumber();
    ASSERT_TRUE(raw->IngestExternalFile({sst}, rocksdb::IngestExternalFileOptions()).ok());
    // The case the sequence number alone would miss.
    EXPECT_EQ(raw->GetLatestSequenceNumber(), seq);
    delete raw;
  }
  std::remove(sst.c_str());
  GuardStats s = Reopen(2001);
  EXPECT_TRUE(s.rebuilt);
  EXPECT_NE(s.rebuild_reason.find("ingested"), std::string::npos) << s.rebuild_reason;
}

TEST_F(GuardedDBRestartTest, DamagedTruncatedOrForeignFilesAreRebuilt) {
  Fill(2000);
  const std::string good = ReadGuardFile();
  ASSERT_GT(good.size(), 100u);
  // Every single-byte flip at a spread of offsets, and every truncation
  // length among them: rebuilt, never trusted.
  for (size_t pos = 0; pos < good.size(); pos += 1 + good.size() / 23) {
    for (int mode = 0; mode < 2; ++mode) {
      std::string bad = good;
      if (mode == 0) {
        bad[pos] ^= 0x10;
      } else {
        bad.resize(pos);
      }
      WriteGuardFile(bad);
      GuardStats s = Reopen(2000);
      EXPECT_TRUE(s.rebuilt) << "pos " << pos << " mode " << mode;
      EXPECT_FALSE(s.loaded);
      WriteGuardFile(good);  // (Reopen saved a fresh one; put the old back)
    }
  }
  // Another DB's guard file, copied over.
  TempDir other;
  {
    auto db = Open(other.path());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "other", "v").ok());
    ASSERT_TRUE(db->Close().ok());
  }
  std::ifstream in(other.path() + "/SSTFILTER-GUARD", std::ios::binary);
  WriteGuardFile(std::string(std::istreambuf_iterator<char>(in), {}));
  GuardStats s = Reopen(2000);
  EXPECT_TRUE(s.rebuilt);
  EXPECT_EQ(s.rebuild_reason, "saved for another DB");
}

TEST_F(GuardedDBRestartTest, ColumnFamiliesAreSavedAndRebuiltEach) {
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, options_}, {"one", options_}};
  for (int round = 0; round < 2; ++round) {
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    std::unique_ptr<GuardedDB> db;
    ASSERT_TRUE(GuardedDB::Open(options_, CheckedGuard(), dir_.path(), families, &handles, &db).ok());
    EXPECT_EQ(db->GetGuardStats().loaded, round == 1);
    for (int i = 0; i < 500; ++i) {
      ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), handles[1], KeyAt(i + round * 500), "v").ok());
    }
    EXPECT_EQ(ExpectAllKeysFound(db.get(), handles[1]), 500u * (round + 1));
    for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
    ASSERT_TRUE(db->Close().ok());
  }
}

}  // namespace
}  // namespace test
}  // namespace sstfilter
