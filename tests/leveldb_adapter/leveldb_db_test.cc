// Real LevelDB databases in temporary directories: 200k keys written,
// compacted and read back through each sstfilter policy; table-file reads
// counted through a wrapping Env show what the filter saves; the same files
// reopened with LevelDB's own Bloom policy and with none read correctly, and
// so do tables LevelDB's Bloom policy wrote, read through ours.

#include <leveldb/db.h>
#include <leveldb/write_batch.h>

#include <iostream>

#include "leveldb_test_util.h"

namespace sstfilter {
namespace {

using test::AbsentKeyAt;
using test::KeyAt;

constexpr uint64_t kNumKeys = 200000;
constexpr uint64_t kNumAbsent = 20000;

// ~100-byte values, so a 4 KiB block holds ~34 keys: LevelDB's usual
// small per-block filters.
std::string ValueAt(uint64_t i) {
  return std::to_string(i) + std::string(92, static_cast<char>('a' + i % 26));
}

class LevelDBDatabaseTest : public ::testing::Test {
 protected:
  // Opens the DB with `policy` (may be null), every block read counted.
  std::unique_ptr<leveldb::DB> Open(const leveldb::FilterPolicy* policy) {
    return opener_.Open(dir_.path(), policy);
  }

  // Writes keys first..first+count in shuffled order (so the level-0 files
  // overlap and compactions merge them), then compacts everything.
  void Fill(leveldb::DB* db, uint64_t first, uint64_t count) {
    leveldb::WriteBatch batch;
    for (uint64_t j = 0; j < count; ++j) {
      const uint64_t i = first + (j * 7919) % count;  // 7919 is prime: a permutation
      batch.Put(KeyAt(i), ValueAt(i));
      if (batch.ApproximateSize() > (1 << 20)) {
        ASSERT_TRUE(db->Write({}, &batch).ok());
        batch.Clear();
      }
    }
    ASSERT_TRUE(db->Write({}, &batch).ok());
    CompactToOneLevel(db);
  }

  // CompactRange(nullptr, nullptr) picks the levels to merge before it
  // flushes the memtable, so one call can leave two overlapping levels (and
  // later Gets would then trigger seek compactions that rewrite tables
  // under whatever policy is open). Repeat until one level holds everything.
  void CompactToOneLevel(leveldb::DB* db) {
    for (int round = 0; round < 4; ++round) {
      db->CompactRange(nullptr, nullptr);
      int levels_with_files = 0;
      for (int level = 0; level < 7; ++level) {
        std::string files;
        ASSERT_TRUE(db->GetProperty("leveldb.num-files-at-level" + std::to_string(level), &files));
        levels_with_files += files != "0";
      }
      if (levels_with_files <= 1) return;
    }
    FAIL() << "data still in several levels after 4 CompactRange calls";
  }

  // Every key of [first, first+count) is found with its value.
  void ExpectPresent(leveldb::DB* db, uint64_t first, uint64_t count) {
    std::string value;
    uint64_t wrong = 0;
    for (uint64_t i = first; i < first + count; ++i) {
      const leveldb::Status s = db->Get({}, KeyAt(i), &value);
      wrong += !s.ok() || value != ValueAt(i);
    }
    EXPECT_EQ(wrong, 0u) << "of " << count << " present keys";
  }

  // Looks up kNumAbsent keys that sort between written keys; all must be
  // NotFound. Returns the table-file reads they caused.
  uint64_t AbsentReads(leveldb::DB* db, uint64_t num_keys) {
    std::string value;
    uint64_t found = 0;
    opener_.ResetReads();
    for (uint64_t j = 0; j < kNumAbsent; ++j) {
      const leveldb::Status s = db->Get({}, AbsentKeyAt(j * (num_keys / kNumAbsent)), &value);
      EXPECT_TRUE(s.ok() || s.IsNotFound()) << s.ToString();
      found += s.ok();
    }
    EXPECT_EQ(found, 0u);
    return opener_.reads();
  }

  test::TempDir dir_;
  test::CountingOpener opener_;
  std::unique_ptr<const leveldb::FilterPolicy> leveldb_bloom_{
      leveldb::NewBloomFilterPolicy(10)};
};

class LevelDBPolicyDatabaseTest : public LevelDBDatabaseTest,
                                  public ::testing::WithParamInterface<std::string> {};

TEST_P(LevelDBPolicyDatabaseTest, FilterSavesReadsAndOtherPoliciesStillRead) {
  auto policy = test::PolicyOrDie(GetParam(), 10);
  uint64_t with_filter = 0;
  {
    auto db = Open(policy.get());
    ASSERT_NE(db, nullptr);
    Fill(db.get(), 0, kNumKeys);
    ExpectPresent(db.get(), 0, kNumKeys);  // also opens every table
    with_filter = AbsentReads(db.get(), kNumKeys);
  }
  uint64_t without_filter = 0;
  {
    auto db = Open(nullptr);
    ASSERT_NE(db, nullptr);
    ExpectPresent(db.get(), 0, kNumKeys);
    without_filter = AbsentReads(db.get(), kNumKeys);
  }
  {
    // LevelDB's own policy looks for "filter.leveldb.BuiltinBloomFilter2",
    // finds none, and reads without a filter.
    auto db = Open(leveldb_bloom_.get());
    ASSERT_NE(db, nullptr);
    ExpectPresent(db.get(), 0, kNumKeys);
    EXPECT_GE(AbsentReads(db.get(), kNumKeys), kNumAbsent * 9 / 10);
  }
  // Without a filter almost every absent key costs a data-block read (all
  // but those falling between two tables). With ours at 10 bits/key,
  // ~34-key filters have an FPR near 2% (leveldb.h): ~400 reads expected,
  // 1200 is 40 standard deviations away.
  EXPECT_GE(without_filter, kNumAbsent * 9 / 10);
  EXPECT_LE(with_filter, kNumAbsent * 6 / 100);
  EXPECT_GT(with_filter, 0u);  // an FPR of exactly 0 would mean no real check
  std::cout << GetParam() << ": table reads for " << kNumAbsent
            << " absent keys: " << with_filter << " with the filter, "
            << without_filter << " without\n";
}

INSTANTIATE_TEST_SUITE_P(Policies, LevelDBPolicyDatabaseTest,
                         ::testing::Values("bloom", "cuckoo", "burr"));

// Tables written by LevelDB's own Bloom policy, then more by ours on top:
// a DB opened with ours reads both kinds correctly, filtering only its own.
TEST_F(LevelDBDatabaseTest, ReadsTablesWrittenByLevelDBsBloomPolicy) {
  constexpr uint64_t kHalf = kNumKeys / 4;
  {
    auto db = Open(leveldb_bloom_.get());
    ASSERT_NE(db, nullptr);
    Fill(db.get(), 0, kHalf);
  }
  auto policy = NewLevelDBCuckooFilterPolicy(10);
  auto db = Open(policy.get());
  ASSERT_NE(db, nullptr);
  ExpectPresent(db.get(), 0, kHalf);
  // Only LevelDB-Bloom tables: ours finds no filter of its name.
  EXPECT_GE(AbsentReads(db.get(), kHalf), kNumAbsent * 9 / 10);

  // Keys kHalf.. sort after the others, so compaction moves their tables
  // down without merging: LevelDB's filters and ours side by side.
  Fill(db.get(), kHalf, kHalf);
  ExpectPresent(db.get(), 0, 2 * kHalf);
  const uint64_t mixed = AbsentReads(db.get(), 2 * kHalf);
  // Half the absent keys fall in our tables, where ~2% cost a read.
  EXPECT_LE(mixed, kNumAbsent * 6 / 10);
  std::cout << "mixed tables: " << mixed << " reads for " << kNumAbsent << " absent keys\n";
}

}  // namespace
}  // namespace sstfilter
