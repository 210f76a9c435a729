// GuardedDB restart: the saved guard is loaded only when it still describes
// the DB; otherwise (writes without the guard, damage, truncation, another
// DB's file, an older format) it is rebuilt, and no key is ever missed.
// SSTs the guard did not see written: guarded_db_foreign_sst_test.cc.

#include <sstfilter/dynamic_cuckoo.h>

#include <rocksdb/sst_file_writer.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iterator>

#include "guard/guard_file.h"
#include "guard_restart_fixture.h"

namespace sstfilter {
namespace test {
namespace {

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
    std::unique_ptr<rocksdb::DB> raw;
    ASSERT_TRUE(sstfilter::OpenDB(options_, dir_.path(), &raw).ok());
    for (int i = 0; i < 3000; ++i) ASSERT_TRUE(raw->Put(rocksdb::WriteOptions(), KeyAt(i), "v").ok());
    raw.reset();
  }
  GuardStats s = Reopen(3000);
  EXPECT_TRUE(s.rebuilt);
  EXPECT_EQ(s.rebuilt_keys, 3000u);
  EXPECT_EQ(s.rebuild_reason, "no saved guard");
}

TEST_F(GuardedDBRestartTest, WritesWithoutTheGuardForceARebuild) {
  Fill(2000);
  {
    std::unique_ptr<rocksdb::DB> raw;
    ASSERT_TRUE(sstfilter::OpenDB(options_, dir_.path(), &raw).ok());
    ASSERT_TRUE(raw->Put(rocksdb::WriteOptions(), KeyAt(5000), "new").ok());
    raw.reset();
  }
  GuardStats s = Reopen(2001);
  EXPECT_TRUE(s.rebuilt);
  EXPECT_NE(s.rebuild_reason.find("without the guard"), std::string::npos) << s.rebuild_reason;
}

// Writes made around an open guard, one path each. The hooks follow every
// write, so the guard saved at Close covers them and the next Open loads
// it; an ingestion they cannot follow leaves no saved guard, and the next
// Open rebuilds. Either way every key is found.
struct AroundPath {
  const char* name;
  // Writes keys [first, first + n) with the base DB of an open guard.
  std::function<void(rocksdb::DB* base, int first, int n)> write;
  bool followed;
};

class GuardedDBAroundTest : public GuardedDBRestartTest,
                            public ::testing::WithParamInterface<AroundPath> {};

TEST_P(GuardedDBAroundTest, WritesAroundAnOpenGuardAreFollowedOrRebuilt) {
  Fill(1000);
  {
    auto db = Open();
    ASSERT_TRUE(db->GetGuardStats().loaded);
    // Guarded writes before and after: their sequence numbers are seen.
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), KeyAt(1000), "v").ok());
    GetParam().write(db->GetBaseDB(), 2000, 200);
    // Followed while open; an ingestion switches the guard off instead.
    EXPECT_EQ(db->GetGuardStats().disabled_families, GetParam().followed ? 0u : 1u);
    std::string v;
    for (int i = 2000; i < 2200; ++i) {
      EXPECT_TRUE(db->Get(rocksdb::ReadOptions(), KeyAt(i), &v).ok()) << GetParam().name << i;
    }
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), KeyAt(1001), "v").ok());
    ASSERT_TRUE(db->Close().ok());
  }
  auto db = Open();
  const GuardStats s = db->GetGuardStats();
  EXPECT_EQ(s.loaded, GetParam().followed) << GetParam().name;
  EXPECT_EQ(s.rebuilt, !GetParam().followed) << GetParam().name;
  if (!GetParam().followed) {
    EXPECT_EQ(s.rebuild_reason, "no saved guard");
  }
  EXPECT_EQ(ExpectAllKeysFound(db.get()), 1202u);
  std::string v;
  for (int i = 2000; i < 2200; ++i) {
    EXPECT_TRUE(db->Get(rocksdb::ReadOptions(), KeyAt(i), &v).ok()) << GetParam().name << " " << i;
  }
  ASSERT_TRUE(db->Close().ok());
}

INSTANTIATE_TEST_SUITE_P(
    Paths, GuardedDBAroundTest,
    ::testing::Values(
        AroundPath{"Put",
                   [](rocksdb::DB* base, int first, int n) {
                     for (int i = first; i < first + n; ++i) {
                       ASSERT_TRUE(base->Put(rocksdb::WriteOptions(), KeyAt(i), "v").ok());
                     }
                   },
                   true},
        AroundPath{"Merge",
                   [](rocksdb::DB* base, int first, int n) {
                     for (int i = first; i < first + n; ++i) {
                       ASSERT_TRUE(base->Merge(rocksdb::WriteOptions(), KeyAt(i), "m").ok());
                     }
                   },
                   true},
        AroundPath{"WriteBatch",
                   [](rocksdb::DB* base, int first, int n) {
                     rocksdb::WriteBatch batch;
                     for (int i = first; i < first + n; ++i) ASSERT_TRUE(batch.Put(KeyAt(i), "v").ok());
                     ASSERT_TRUE(base->Write(rocksdb::WriteOptions(), &batch).ok());
                   },
                   true},
        // Overlaps the memtable's keys, so RocksDB gives it a sequence number.
        AroundPath{"IngestOverlapping",
                   [](rocksdb::DB* base, int first, int n) {
                     ASSERT_TRUE(base->Put(rocksdb::WriteOptions(), KeyAt(first), "old").ok());
                     const std::string sst = base->GetName() + "/../around-" +
                                             std::to_string(getpid()) + ".sst";
                     rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), base->GetOptions());
                     ASSERT_TRUE(writer.Open(sst).ok());
                     std::vector<std::string> keys;
                     for (int i = first; i < first + n; ++i) keys.push_back(KeyAt(i));
                     std::sort(keys.begin(), keys.end());
                     for (const auto& k : keys) ASSERT_TRUE(writer.Put(k, "v").ok());
                     ASSERT_TRUE(writer.Finish().ok());
                     const auto seq = base->GetLatestSequenceNumber();
                     ASSERT_TRUE(base->IngestExternalFile({sst}, {}).ok());
                     EXPECT_GT(base->GetLatestSequenceNumber(), seq);
                     std::remove(sst.c_str());
                   },
                   false}),
    [](const ::testing::TestParamInfo<AroundPath>& info) { return info.param.name; });

// The same paths through the guard are counted: the next Open loads.
TEST_F(GuardedDBRestartTest, EveryGuardedWritePathStillLoads) {
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, options_}, {"unguarded", options_}};
  GuardOptions guard = QuietGuard();
  guard.column_families = {rocksdb::kDefaultColumnFamilyName};
  for (int round = 0; round < 2; ++round) {
    std::vector<rocksdb::ColumnFamilyHandle*> h;
    std::unique_ptr<GuardedDB> db;
    ASSERT_TRUE(GuardedDB::Open(options_, guard, dir_.path(), families, &h, &db).ok());
    EXPECT_EQ(db->GetGuardStats().loaded, round == 1);
    EXPECT_EQ(db->GetGuardStats().rebuilt, round == 0) << db->GetGuardStats().rebuild_reason;
    const rocksdb::WriteOptions wo;
    const int base = round * 100;
    for (auto* cf : h) {
      ASSERT_TRUE(db->Put(wo, cf, KeyAt(base), "v").ok());
      ASSERT_TRUE(db->Merge(wo, cf, KeyAt(base + 1), "m").ok());
      ASSERT_TRUE(db->Put(wo, cf, KeyAt(base + 2), "v").ok());
      ASSERT_TRUE(db->Delete(wo, cf, KeyAt(base + 2)).ok());
      ASSERT_TRUE(db->Put(wo, cf, KeyAt(base + 3), "v").ok());
      ASSERT_TRUE(db->SingleDelete(wo, cf, KeyAt(base + 3)).ok());
      ASSERT_TRUE(db->DeleteRange(wo, cf, KeyAt(base + 90), KeyAt(base + 99)).ok());
      rocksdb::WriteBatch batch;
      ASSERT_TRUE(batch.Put(cf, KeyAt(base + 4), "v").ok());
      ASSERT_TRUE(batch.Delete(cf, KeyAt(base + 5)).ok());
      ASSERT_TRUE(batch.Merge(cf, KeyAt(base + 6), "m").ok());
      ASSERT_TRUE(batch.DeleteRange(cf, KeyAt(base + 80), KeyAt(base + 89)).ok());
      ASSERT_TRUE(batch.PutLogData("not a record").ok());
      ASSERT_TRUE(db->Write(wo, &batch).ok());
      rocksdb::WriteBatch empty;
      ASSERT_TRUE(db->Write(wo, &empty).ok());
    }
    EXPECT_EQ(ExpectAllKeysFound(db.get(), h[0]), 4u * (round + 1));
    for (auto* cf : h) ASSERT_TRUE(db->DestroyColumnFamilyHandle(cf).ok());
    ASSERT_TRUE(db->Close().ok());
  }
}

// A guard saved by an older build whose filter is of format version 1 to 3
// (tests/data: those formats load read-only): rebuilt, every key found.
TEST_F(GuardedDBRestartTest, AnOlderFormatsFilterIsRebuilt) {
  Fill(2000);
  GuardFileContents saved;
  std::string why;
  ASSERT_TRUE(DecodeGuardFile(ReadGuardFile(), &saved, &why)) << why;
  ASSERT_EQ(saved.families.size(), 1u);
  std::ifstream in(std::string(SSTFILTER_TEST_DATA_DIR) + "/dynamic_v2.bin", std::ios::binary);
  saved.families[0].filter = std::string(std::istreambuf_iterator<char>(in), {});
  std::unique_ptr<DynamicCuckooFilter> old;
  ASSERT_EQ(DynamicCuckooFilter::Load(saved.families[0].filter, &old), DynamicStatus::kOk);
  std::string bytes;
  EncodeGuardFile(saved, &bytes);
  WriteGuardFile(bytes);
  const GuardStats s = Reopen(2000);
  EXPECT_TRUE(s.rebuilt);
  EXPECT_NE(s.rebuild_reason.find("older, read-only format"), std::string::npos)
      << s.rebuild_reason;
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
    ASSERT_TRUE(GuardedDB::Open(options_, QuietGuard(), dir_.path(), families, &handles, &db).ok());
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
