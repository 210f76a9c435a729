// The fixture of the GuardedDB restart tests (guarded_db_restart_test.cc,
// guarded_db_foreign_sst_test.cc): a DB in a temporary directory, opened
// and filled through the guard, its saved guard file read and rewritten.

#pragma once

#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "guard_test_util.h"
#include "rocksdb_adapter/db_open.h"

namespace sstfilter {
namespace test {

class GuardedDBRestartTest : public ::testing::Test {
 protected:
  // Every Get probes: Reopen counts what the guard rules out.
  std::unique_ptr<GuardedDB> Open(const std::string& path = "") {
    std::unique_ptr<GuardedDB> db;
    EXPECT_TRUE(GuardedDB::Open(options_, EveryGetProbes(), path.empty() ? dir_.path() : path, &db)
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

}  // namespace test
}  // namespace sstfilter
