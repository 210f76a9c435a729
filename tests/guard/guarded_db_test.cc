// GuardedDB on a real RocksDB: reads it rules out, every write path (the
// memtable hook), entries that only grow, column families, refusals.
// Transactions: guarded_db_txn_test.cc.

#include <rocksdb/memtablerep.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/statistics.h>
#include <rocksdb/utilities/write_batch_with_index.h>
#include <rocksdb/write_batch.h>

#include "guard_test_util.h"
#include "rocksdb_adapter/db_open.h"

namespace sstfilter {
namespace test {
namespace {

class GuardedDBTest : public ::testing::Test {
 protected:
  void Open(const GuardOptions& g = QuietGuard()) {
    options_.statistics = rocksdb::CreateDBStatistics();
    ASSERT_TRUE(GuardedDB::Open(options_, g, dir_.path(), &db_).ok());
  }
  GuardStats Stats() const { return db_->GetGuardStats(); }
  TempDir dir_;
  rocksdb::Options options_ = GuardTestOptions();
  std::unique_ptr<GuardedDB> db_;
  rocksdb::WriteOptions wo_;
  rocksdb::ReadOptions ro_;
};

TEST_F(GuardedDBTest, RulesOutAbsentKeysWithoutTouchingTheDB) {
  Open();
  for (int i = 0; i < 20000; ++i) ASSERT_TRUE(db_->Put(wo_, KeyAt(i), "v").ok());
  ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
  // Every Get that reaches the DB looks in the memtable first.
  auto db_gets = [&] {
    return options_.statistics->getTickerCount(rocksdb::MEMTABLE_HIT) +
           options_.statistics->getTickerCount(rocksdb::MEMTABLE_MISS);
  };
  const uint64_t before = db_gets();
  std::string v;
  int not_found = 0;
  for (int i = 0; i < 20000; ++i) {
    not_found += db_->Get(ro_, AbsentKeyAt(i), &v).IsNotFound() ? 1 : 0;
  }
  EXPECT_EQ(not_found, 20000);
  // At the default 0.1% FPR, 20000 absent keys let about 20 through; 200
  // would be 10x the target.
  const uint64_t ruled_out = db_->RuledOut();
  EXPECT_GE(ruled_out, 20000u - 200);
  EXPECT_EQ(db_gets() - before, 20000 - ruled_out) << "ruled-out Gets reached the DB";
  // KeyMayExist and MultiGet likewise; present keys are found.
  int may_exist = 0;
  for (int i = 0; i < 1000; ++i) may_exist += db_->KeyMayExist(ro_, AbsentKeyAt(i), &v) ? 1 : 0;
  EXPECT_LT(may_exist, 20);
  std::vector<std::string> keys;
  for (int i = 0; i < 100; ++i) keys.push_back(i % 2 ? KeyAt(i) : AbsentKeyAt(i));
  std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
  std::vector<std::string> values;
  const auto statuses = db_->MultiGet(ro_, slices, &values);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(statuses[i].ok(), i % 2 == 1) << keys[i];
    if (i % 2) {
      EXPECT_EQ(values[i], "v");
    }
  }
  EXPECT_GE(db_->RuledOut(), ruled_out + 1000 - 20 + 50 - 5);
  EXPECT_EQ(Stats().ruled_out, db_->RuledOut());
  EXPECT_EQ(ExpectAllKeysFound(db_.get()), 20000u);
}

TEST_F(GuardedDBTest, OverwritesAddOnceDeletesLeaveStaleEntries) {
  Open();
  for (int round = 0; round < 20; ++round) {  // more than a bucket pair's copy limit
    for (int i = 0; i < 500; ++i) ASSERT_TRUE(db_->Put(wo_, KeyAt(i), "v").ok());
  }
  EXPECT_EQ(Stats().keys, 500u);
  for (int i = 0; i < 500; i += 2) ASSERT_TRUE(db_->Delete(wo_, KeyAt(i)).ok());
  for (int i = 0; i < 500; ++i) ASSERT_TRUE(db_->Delete(wo_, AbsentKeyAt(i)).ok());
  // Deletes remove nothing: the deleted keys stay as stale entries.
  EXPECT_EQ(Stats().keys, 500u);
  std::string v;
  for (int i = 0; i < 500; i += 2) EXPECT_TRUE(db_->Get(ro_, KeyAt(i), &v).IsNotFound());
  EXPECT_EQ(Stats().guard_errors, 0u);
  EXPECT_EQ(Stats().disabled_families, 0u);
  EXPECT_EQ(ExpectAllKeysFound(db_.get()), 250u);
}

TEST_F(GuardedDBTest, EveryWritePath) {
  Open();
  ASSERT_TRUE(db_->Put(wo_, "put", "1").ok());
  ASSERT_TRUE(db_->Merge(wo_, "merge", "a").ok());
  ASSERT_TRUE(db_->Merge(wo_, "merge", "b").ok());
  ASSERT_TRUE(db_->PutEntity(wo_, db_->DefaultColumnFamily(), "entity",
                             {{"c1", "x"}, {"c2", "y"}}).ok());
  ASSERT_TRUE(db_->Put(wo_, "single", "1").ok());
  ASSERT_TRUE(db_->SingleDelete(wo_, "single").ok());
  EXPECT_EQ(Stats().keys, 4u);  // put, merge, entity, single (stale)
  rocksdb::WriteBatch batch;
  ASSERT_TRUE(batch.Put("b-put", "1").ok());
  ASSERT_TRUE(batch.Merge("b-merge", "m").ok());
  ASSERT_TRUE(batch.PutEntity(db_->DefaultColumnFamily(), "b-entity", {{"c", "z"}}).ok());
  ASSERT_TRUE(batch.Put("b-gone", "1").ok());
  ASSERT_TRUE(batch.Delete("b-gone").ok());  // put then deleted in one batch
  ASSERT_TRUE(batch.Delete("put").ok());
  ASSERT_TRUE(batch.Delete("b-back").ok());
  ASSERT_TRUE(batch.Put("b-back", "1").ok());  // deleted then put
  ASSERT_TRUE(batch.PutLogData("log").ok());
  ASSERT_TRUE(db_->Write(wo_, &batch).ok());
  EXPECT_EQ(Stats().keys, 9u);
  std::string v;
  EXPECT_TRUE(db_->Get(ro_, "merge", &v).ok());
  EXPECT_EQ(v, "a,b");
  EXPECT_TRUE(db_->Get(ro_, "put", &v).IsNotFound());
  EXPECT_TRUE(db_->Get(ro_, "b-gone", &v).IsNotFound());
  // DeleteRange keeps its keys, stale; putting one back adds nothing.
  ASSERT_TRUE(db_->DeleteRange(wo_, db_->DefaultColumnFamily(), "b-", "b-z").ok());
  ASSERT_TRUE(db_->Put(wo_, "b-merge", "again").ok());
  EXPECT_EQ(Stats().keys, 9u);
  EXPECT_TRUE(db_->Get(ro_, "b-merge", &v).ok());
  // Ingestion: keys of an external SST are in the guard before they appear.
  const std::string sst = dir_.path() + "/ingest.sst";
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options_);
  ASSERT_TRUE(writer.Open(sst).ok());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(writer.Put("z" + KeyAt(i), "v").ok());
  ASSERT_TRUE(writer.Finish().ok());
  ASSERT_TRUE(db_->IngestExternalFile({sst}, rocksdb::IngestExternalFileOptions()).ok());
  EXPECT_EQ(Stats().keys, 109u);
  EXPECT_EQ(Stats().guard_errors, 0u);
  // merge, entity, b-merge and the 100 ingested.
  EXPECT_EQ(ExpectAllKeysFound(db_.get()), 103u);
}

// The paths the guard used to miss while open: every one ends in the
// memtable insert, where the hook sees it.
TEST_F(GuardedDBTest, WritesAroundTheGuardAreFollowed) {
  Open(EveryGetProbes());  // it counts the absent Gets ruled out
  rocksdb::DB* base = db_->GetBaseDB();
  std::string v;
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(base->Put(wo_, KeyAt(i), "base").ok());
  rocksdb::WriteBatchWithIndex wbwi;
  for (int i = 200; i < 400; ++i) ASSERT_TRUE(wbwi.Put(KeyAt(i), "wbwi").ok());
  ASSERT_TRUE(base->Write(wo_, wbwi.GetWriteBatch()).ok());
  rocksdb::WriteBatch batch;
  for (int i = 400; i < 600; ++i) ASSERT_TRUE(batch.Merge(KeyAt(i), "m").ok());
  ASSERT_TRUE(base->Write(wo_, &batch).ok());
  for (int i = 0; i < 600; ++i) {
    ASSERT_TRUE(db_->Get(ro_, KeyAt(i), &v).ok()) << KeyAt(i);
  }
  EXPECT_EQ(Stats().keys, 600u);
  // Absent keys are still ruled out.
  const uint64_t before = db_->RuledOut();
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(db_->Get(ro_, AbsentKeyAt(i), &v).IsNotFound());
  EXPECT_GE(db_->RuledOut(), before + 990);
  EXPECT_EQ(ExpectAllKeysFound(db_.get()), 600u);
}

TEST_F(GuardedDBTest, LargeBatches) {
  Open();
  rocksdb::WriteBatch puts;
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(puts.Put(KeyAt(i), "v").ok());
  ASSERT_TRUE(db_->Write(wo_, &puts).ok());
  ASSERT_TRUE(db_->Write(wo_, &puts).ok());  // overwrites: no new entries
  EXPECT_EQ(Stats().keys, 300u);
  rocksdb::WriteBatch deletes;
  for (int i = 0; i < 300; i += 3) ASSERT_TRUE(deletes.Delete(KeyAt(i)).ok());
  ASSERT_TRUE(db_->Write(wo_, &deletes).ok());
  EXPECT_EQ(Stats().keys, 300u);
  EXPECT_EQ(Stats().guard_errors, 0u);
  EXPECT_EQ(ExpectAllKeysFound(db_.get()), 200u);
}

TEST_F(GuardedDBTest, SnapshotReadsBypassTheGuard) {
  Open();
  ASSERT_TRUE(db_->Put(wo_, "k", "v").ok());
  const rocksdb::Snapshot* snap = db_->GetSnapshot();
  ASSERT_TRUE(db_->Delete(wo_, "k").ok());
  std::string v;
  EXPECT_TRUE(db_->Get(ro_, "k", &v).IsNotFound());
  rocksdb::ReadOptions at_snap;
  at_snap.snapshot = snap;
  EXPECT_TRUE(db_->Get(at_snap, "k", &v).ok());
  std::vector<rocksdb::Slice> keys = {"k"};
  std::vector<std::string> values;
  EXPECT_TRUE(db_->MultiGet(at_snap, keys, &values)[0].ok());
  db_->ReleaseSnapshot(snap);
}

TEST_F(GuardedDBTest, ColumnFamilies) {
  GuardOptions g = QuietGuard();
  g.column_families = {"default", "guarded"};
  Open(g);
  rocksdb::ColumnFamilyHandle *guarded, *plain;
  ASSERT_TRUE(db_->CreateColumnFamily(options_, "guarded", &guarded).ok());
  ASSERT_TRUE(db_->CreateColumnFamily(options_, "plain", &plain).ok());
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(db_->Put(wo_, guarded, KeyAt(i), "g").ok());
    ASSERT_TRUE(db_->Put(wo_, plain, KeyAt(i), "p").ok());
  }
  EXPECT_EQ(Stats().keys, 100u);
  std::string v;
  const uint64_t before = db_->RuledOut();
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(db_->Get(ro_, plain, AbsentKeyAt(i), &v).IsNotFound());
  EXPECT_EQ(db_->RuledOut(), before);  // unguarded: every read went to the DB
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(db_->Get(ro_, guarded, AbsentKeyAt(i), &v).IsNotFound());
  EXPECT_GE(db_->RuledOut(), before + 95);
  EXPECT_EQ(ExpectAllKeysFound(db_.get(), guarded), 100u);
  // A family created around the guard is unguarded: written and read
  // through it as through the DB.
  rocksdb::ColumnFamilyHandle* around = nullptr;
  ASSERT_TRUE(db_->GetBaseDB()->CreateColumnFamily(options_, "around", &around).ok());
  ASSERT_TRUE(db_->Put(wo_, around, "k", "v").ok());
  EXPECT_TRUE(db_->Get(ro_, around, "k", &v).ok());
  // Dropped: reads through the old handle still work; the guard is not saved.
  ASSERT_TRUE(db_->DropColumnFamily(guarded).ok());
  EXPECT_TRUE(db_->Get(ro_, guarded, KeyAt(1), &v).ok());
  for (auto* h : {guarded, plain, around}) ASSERT_TRUE(db_->DestroyColumnFamilyHandle(h).ok());
  EXPECT_TRUE(db_->Close().ok());
}

TEST_F(GuardedDBTest, RefusesWhatItCannotFollow) {
  Open();
  rocksdb::ColumnFamilyHandle* h = nullptr;
  const rocksdb::Status import = db_->CreateColumnFamilyWithImport(
      options_, "imported", rocksdb::ImportColumnFamilyOptions(),
      rocksdb::ExportImportFilesMetaData(), &h);
  EXPECT_TRUE(import.IsNotSupported());
  EXPECT_NE(import.ToString().find("import into guarded column family 'imported'"),
            std::string::npos)
      << import.ToString();
  TempDir dir;
  std::unique_ptr<GuardedDB> other;
  GuardOptions bad = QuietGuard();
  bad.target_fpr = 0.7;
  const rocksdb::Status fpr = GuardedDB::Open(options_, bad, dir.path(), &other);
  EXPECT_TRUE(fpr.IsInvalidArgument());
  EXPECT_NE(fpr.ToString().find("target_fpr must be in (0, 0.5)"), std::string::npos);
  // A write visible before its memtable insert cannot be followed.
  rocksdb::Options unordered = options_;
  unordered.unordered_write = true;
  const rocksdb::Status u = GuardedDB::Open(unordered, QuietGuard(), dir.path(), &other);
  EXPECT_TRUE(u.IsNotSupported());
  EXPECT_NE(u.ToString().find("unordered_write"), std::string::npos) << u.ToString();
  // A memtable whose entries the hook cannot read.
  rocksdb::Options linklist = options_;
  linklist.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(4));
  linklist.memtable_factory.reset(rocksdb::NewHashLinkListRepFactory());
  const rocksdb::Status l = GuardedDB::Open(linklist, QuietGuard(), dir.path(), &other);
  EXPECT_TRUE(l.IsNotSupported());
  EXPECT_NE(l.ToString().find("HashLinkListRepFactory"), std::string::npos) << l.ToString();
  EXPECT_EQ(other, nullptr);
  // Read-only and secondary instances, through a BaseOpener.
  ASSERT_TRUE(db_->Close().ok());
  db_.reset();
  const std::vector<rocksdb::ColumnFamilyDescriptor> cfs = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(options_)}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  for (const bool secondary : {false, true}) {
    const std::string secondary_dir = dir.path() + "/secondary";
    const rocksdb::Status s = GuardedDB::Open(
        rocksdb::DBOptions(options_), QuietGuard(), dir_.path(), cfs, &handles, &other,
        [&](const rocksdb::DBOptions& o, const std::string& p,
            const std::vector<rocksdb::ColumnFamilyDescriptor>& f,
            std::vector<rocksdb::ColumnFamilyHandle*>* h, rocksdb::DB** out) {
#if SSTFILTER_HAS_UNIQUE_PTR_OPEN
          std::unique_ptr<rocksdb::DB> db;
#else
          rocksdb::DB* db = nullptr;
#endif
          const rocksdb::Status st =
              secondary ? rocksdb::DB::OpenAsSecondary(o, p, secondary_dir, f, h, &db)
                        : rocksdb::DB::OpenForReadOnly(o, p, f, h, &db);
#if SSTFILTER_HAS_UNIQUE_PTR_OPEN
          *out = db.release();
#else
          *out = db;
#endif
          return st;
        });
    EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
    EXPECT_NE(s.ToString().find("a read-only or secondary DB"), std::string::npos);
    EXPECT_TRUE(handles.empty());
    EXPECT_EQ(other, nullptr);
  }
}

// The other memtables: the hook reads their entries as it reads the skip
// list's, and the OPTIONS file names the memtable itself, so that plain
// RocksDB and its tools open the DB.
TEST_F(GuardedDBTest, OtherMemtablesAndThePersistedOptions) {
  options_.memtable_factory.reset(new rocksdb::VectorRepFactory());
  options_.allow_concurrent_memtable_write = false;
  Open();
  for (int i = 0; i < 500; ++i) ASSERT_TRUE(db_->Put(wo_, KeyAt(i), "v").ok());
  std::string v;
  int not_found = 0;
  for (int i = 0; i < 2000; ++i) not_found += db_->Get(ro_, AbsentKeyAt(i), &v).IsNotFound();
  EXPECT_EQ(not_found, 2000);
  EXPECT_GE(db_->RuledOut(), 2000u - 20);
  EXPECT_EQ(ExpectAllKeysFound(db_.get()), 500u);
  const rocksdb::Options in_use = db_->GetOptions();
  EXPECT_STREQ(in_use.memtable_factory->Name(), "VectorRepFactory");
  ASSERT_TRUE(db_->Close().ok());
  db_.reset();
  std::unique_ptr<rocksdb::DB> plain;
  rocksdb::Options reopen = options_;
  reopen.memtable_factory.reset(new rocksdb::SkipListFactory());
  reopen.allow_concurrent_memtable_write = true;
  ASSERT_TRUE(OpenDB(reopen, dir_.path(), &plain).ok());
  EXPECT_TRUE(plain->Get(ro_, KeyAt(7), &v).ok());
}

// DeleteRange leaves the guard's entries of the keys it removes; putting
// the same keys again adds nothing, since the filter matches them: 4
// cycles cost what one does.
TEST_F(GuardedDBTest, KeysPutBackAfterDeleteRangeAddNothing) {
  Open();
  constexpr int kKeys = 50'000;
  uint64_t after_one = 0;
  for (int cycle = 0; cycle < 4; ++cycle) {
    for (int start = 0; start < kKeys; start += 1000) {
      rocksdb::WriteBatch batch;
      for (int i = start; i < start + 1000; ++i) ASSERT_TRUE(batch.Put(KeyAt(i), "v").ok());
      ASSERT_TRUE(db_->Write(wo_, &batch).ok());
    }
    if (cycle == 0) after_one = Stats().memory_bytes;
    ASSERT_EQ(ExpectAllKeysFound(db_.get()), static_cast<size_t>(kKeys));
    if (cycle < 3) {
      ASSERT_TRUE(db_->DeleteRange(wo_, db_->DefaultColumnFamily(), KeyAt(0), "~").ok());
    }
  }
  // An entry per key, less the few keys another key's entry matched at
  // their first write (at most about the FPR's share).
  const GuardStats s = Stats();
  EXPECT_LE(s.keys, static_cast<uint64_t>(kKeys));
  EXPECT_GE(s.keys, static_cast<uint64_t>(kKeys - kKeys / 200));
  EXPECT_EQ(s.guard_errors, 0u);
  EXPECT_EQ(s.memory_bytes, after_one);
}

}  // namespace
}  // namespace test
}  // namespace sstfilter
