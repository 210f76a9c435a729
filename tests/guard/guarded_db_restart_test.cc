// GuardedDB restart: the saved guard is loaded only when it still describes
// the DB; otherwise (writes or ingestion without the guard, damage,
// truncation, another DB's file) it is rebuilt, and no key is ever missed.

#include <sstfilter/dynamic_cuckoo.h>

#include <rocksdb/sst_file_writer.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iterator>

#include "guard/guard_file.h"
#include "guard_test_util.h"
#include "rocksdb/db_open.h"

namespace sstfilter {
namespace test {
namespace {

class GuardedDBRestartTest : public ::testing::Test {
 protected:
  std::unique_ptr<GuardedDB> Open(const std::string& path = "") {
    std::unique_ptr<GuardedDB> db;
    EXPECT_TRUE(GuardedDB::Open(options_, QuietGuard(), path.empty() ? dir_.path() : path, &db)
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
  // Another DB's one SST of 300 keys "zzz-...", compacted to the bottom
  // (sequence numbers 0, as allow_db_generated_files requires).
  void OtherDbSst(const TempDir& other, std::string* sst) {
    std::unique_ptr<rocksdb::DB> raw;
    ASSERT_TRUE(sstfilter::OpenDB(options_, other.path(), &raw).ok());
    for (int i = 0; i < 300; ++i) ASSERT_TRUE(raw->Put({}, "zzz-" + KeyAt(i), "v").ok());
    ASSERT_TRUE(raw->Flush({}).ok());
    rocksdb::CompactRangeOptions cro;
    cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    ASSERT_TRUE(raw->CompactRange(cro, nullptr, nullptr).ok());
    std::vector<rocksdb::LiveFileMetaData> files;
    raw->GetLiveFilesMetaData(&files);
    ASSERT_EQ(files.size(), 1u);
    *sst = files[0].db_path + files[0].name;
    ASSERT_TRUE(raw->Close().ok());
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

TEST_F(GuardedDBRestartTest, IngestionWithoutTheGuardForcesARebuild) {
  Fill(2000);
  const std::string sst = dir_.path() + "/../ingest-" + std::to_string(getpid()) + ".sst";
  {
    rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options_);
    ASSERT_TRUE(writer.Open(sst).ok());
    ASSERT_TRUE(writer.Put("zzz-ingested", "v").ok());
    ASSERT_TRUE(writer.Finish().ok());
    std::unique_ptr<rocksdb::DB> raw;
    ASSERT_TRUE(sstfilter::OpenDB(options_, dir_.path(), &raw).ok());
    const auto seq = raw->GetLatestSequenceNumber();
    ASSERT_TRUE(raw->IngestExternalFile({sst}, rocksdb::IngestExternalFileOptions()).ok());
    // The case the sequence number alone would miss.
    EXPECT_EQ(raw->GetLatestSequenceNumber(), seq);
    raw.reset();
  }
  std::remove(sst.c_str());
  GuardStats s = Reopen(2001);
  EXPECT_TRUE(s.rebuilt);
  EXPECT_NE(s.rebuild_reason.find("ingested"), std::string::npos) << s.rebuild_reason;
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

// An ingestion RocksDB gives a sequence number cannot be told from a write
// around the guard: even through the guard, the next Open rebuilds.
TEST_F(GuardedDBRestartTest, IngestionWithASequenceNumberRebuildsNextOpen) {
  Fill(500);
  const std::string sst = dir_.path() + "/../guarded-ingest-" + std::to_string(getpid()) + ".sst";
  {
    auto db = Open();
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "zzz-1", "old").ok());  // in the memtable
    rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options_);
    ASSERT_TRUE(writer.Open(sst).ok());
    ASSERT_TRUE(writer.Put("zzz-1", "v").ok());
    ASSERT_TRUE(writer.Put("zzz-2", "v").ok());
    ASSERT_TRUE(writer.Finish().ok());
    const auto seq = db->GetLatestSequenceNumber();
    ASSERT_TRUE(db->IngestExternalFile({sst}, rocksdb::IngestExternalFileOptions()).ok());
    ASSERT_GT(db->GetLatestSequenceNumber(), seq);
    ASSERT_TRUE(db->Close().ok());
  }
  std::remove(sst.c_str());
  GuardStats s = Reopen(502);
  EXPECT_TRUE(s.rebuilt);
}

// A session without the guard that only compacted adds no key, but its
// SSTs cannot be told from an ingestion's: the next Open rebuilds.
TEST_F(GuardedDBRestartTest, CompactionWithoutTheGuardForcesARebuild) {
  Fill(2000);
  {
    std::unique_ptr<rocksdb::DB> raw;
    ASSERT_TRUE(sstfilter::OpenDB(options_, dir_.path(), &raw).ok());
    const auto seq = raw->GetLatestSequenceNumber();
    rocksdb::CompactRangeOptions cro;
    cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    ASSERT_TRUE(raw->CompactRange(cro, nullptr, nullptr).ok());
    EXPECT_EQ(raw->GetLatestSequenceNumber(), seq);
    raw.reset();
  }
  GuardStats s = Reopen(2000);
  EXPECT_TRUE(s.rebuilt);
  EXPECT_NE(s.rebuild_reason.find("another session"), std::string::npos) << s.rebuild_reason;
  // The guard's own compactions are its session's: the next Open loads.
  {
    auto db = Open();
    ASSERT_TRUE(db->GetGuardStats().loaded);
    rocksdb::CompactRangeOptions cro;
    cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    ASSERT_TRUE(db->CompactRange(cro, nullptr, nullptr).ok());
    ASSERT_TRUE(db->Close().ok());
  }
  EXPECT_TRUE(Reopen(2000).loaded);
}

#if ROCKSDB_MAJOR > 9 || (ROCKSDB_MAJOR == 9 && ROCKSDB_MINOR >= 5)
// Another DB's SST ingested around the guard with allow_db_generated_files:
// no sequence number, no SstFileWriter property. It used to be missed: the
// saved guard loaded and ruled out every ingested key.
TEST_F(GuardedDBRestartTest, IngestedDbGeneratedFileForcesARebuild) {
  Fill(1000);
  TempDir other;
  std::string sst;
  ASSERT_NO_FATAL_FAILURE(OtherDbSst(other, &sst));
  rocksdb::IngestExternalFileOptions io;
  io.allow_db_generated_files = true;
  io.write_global_seqno = false;
  // Between two guarded sessions: the next Open sees an SST of another
  // session.
  {
    std::unique_ptr<rocksdb::DB> raw;
    ASSERT_TRUE(sstfilter::OpenDB(options_, dir_.path(), &raw).ok());
    const auto seq = raw->GetLatestSequenceNumber();
    const rocksdb::Status s = raw->IngestExternalFile({sst}, io);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(raw->GetLatestSequenceNumber(), seq);
    raw.reset();
  }
  GuardStats s = Reopen(1300);
  EXPECT_TRUE(s.rebuilt);
  EXPECT_NE(s.rebuild_reason.find("another session"), std::string::npos) << s.rebuild_reason;
}

// The same file ingested around an open guard: RocksDB reports it once the
// file is visible, the family's guard switches itself off, and the session
// saves no guard.
TEST_F(GuardedDBRestartTest, IngestedDbGeneratedFileAroundAnOpenGuard) {
  Fill(1000);
  TempDir other;
  std::string sst;
  ASSERT_NO_FATAL_FAILURE(OtherDbSst(other, &sst));
  {
    auto db = Open();
    rocksdb::IngestExternalFileOptions io;
    io.allow_db_generated_files = true;
    io.write_global_seqno = false;
    const rocksdb::Status st = db->GetBaseDB()->IngestExternalFile({sst}, io);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(db->GetGuardStats().disabled_families, 1u);
    EXPECT_EQ(ExpectAllKeysFound(db.get()), 1300u);
    ASSERT_TRUE(db->Close().ok());
  }
  GuardStats s = Reopen(1300);
  EXPECT_TRUE(s.rebuilt);
  EXPECT_EQ(s.rebuild_reason, "no saved guard");
}
#endif

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
