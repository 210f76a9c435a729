// Ingestion through GuardedDB: the files' keys are in the guard before
// RocksDB can make them visible, in one step (IngestExternalFile) and in
// two (PrepareFileIngestion, then CommitFileIngestionHandle, RocksDB 11.5
// on), whatever guarded writes come between the two steps.

#include <sstfilter/guarded_db.h>

#include <gtest/gtest.h>
#include <rocksdb/sst_file_writer.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "guard_test_util.h"

namespace sstfilter {
namespace {

using test::QuietGuard;
using test::ExpectAllKeysFound;
using test::GuardTestOptions;

std::string KeyAt(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "key%08d", i);
  return buf;
}

class GuardedDBIngestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(GuardedDB::Open(options_, QuietGuard(), dir_.path(), &db_).ok());
    for (int i = 0; i < 1000; ++i) ASSERT_TRUE(db_->Put({}, KeyAt(i), "old").ok());
  }
  void TearDown() override {
    db_.reset();
    for (const std::string& f : files_) std::remove(f.c_str());
  }

  // An SST of keys [first, first + n), sorted, value "new".
  std::string WriteSst(int first, int n) {
    const std::string path = dir_.path() + "/../ingest-" + std::to_string(getpid()) + "-" +
                             std::to_string(files_.size()) + ".sst";
    rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options_);
    EXPECT_TRUE(writer.Open(path).ok());
    for (int i = first; i < first + n; ++i) EXPECT_TRUE(writer.Put(KeyAt(i), "new").ok());
    EXPECT_TRUE(writer.Finish().ok());
    files_.push_back(path);
    return path;
  }

  std::string Get(int i) {
    std::string v;
    const rocksdb::Status s = db_->Get({}, KeyAt(i), &v);
    return s.ok() ? v : s.ToString();
  }

  rocksdb::Options options_ = GuardTestOptions();
  test::TempDir dir_;
  std::unique_ptr<GuardedDB> db_;
  std::vector<std::string> files_;
};

// Keys 900-1099: half overwrite keys the DB holds, half are new.
TEST_F(GuardedDBIngestTest, IngestedKeysAreFound) {
  ASSERT_TRUE(db_->IngestExternalFile({WriteSst(900, 200)}, {}).ok());
  for (int i = 900; i < 1100; ++i) ASSERT_EQ(Get(i), "new") << i;
  EXPECT_EQ(ExpectAllKeysFound(db_.get()), 1100u);
}

#if ROCKSDB_MAJOR > 11 || (ROCKSDB_MAJOR == 11 && ROCKSDB_MINOR >= 5)
// Between prepare and commit, guarded deletes remove keys the files also
// hold, and guarded puts write keys only the files hold. After the commit
// the files' versions are visible, and the guard rules none of them out.
TEST_F(GuardedDBIngestTest, TwoPhaseIngestionSurvivesWritesBetweenTheSteps) {
  rocksdb::IngestExternalFileArg arg;
  arg.column_family = db_->DefaultColumnFamily();
  arg.external_files = {WriteSst(900, 200)};
  std::unique_ptr<rocksdb::FileIngestionHandle> handle;
  ASSERT_TRUE(db_->PrepareFileIngestion({arg}, &handle).ok());
  // A rebuild's snapshot would miss the prepared keys: none runs.
  EXPECT_TRUE(db_->RepresizeGuard(db_->DefaultColumnFamily()).IsNotSupported());
  for (int i = 900; i < 1000; ++i) ASSERT_TRUE(db_->Delete({}, KeyAt(i)).ok());
  for (int i = 1000; i < 1050; ++i) ASSERT_TRUE(db_->Put({}, KeyAt(i), "between").ok());
  for (int i = 1000; i < 1050; ++i) ASSERT_TRUE(db_->Delete({}, KeyAt(i)).ok());
  ASSERT_TRUE(db_->CommitFileIngestionHandle(std::move(handle)).ok());
  for (int i = 900; i < 1100; ++i) ASSERT_EQ(Get(i), "new") << i;
  EXPECT_EQ(ExpectAllKeysFound(db_.get()), 1100u);
}
#endif

}  // namespace
}  // namespace sstfilter
