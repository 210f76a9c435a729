// Tables written today stay filtered by every later sstfilter release.
//
// tests/data/leveldb_v1 is a small LevelDB database written with the
// sstfilter policies of format version 1 (its tables' filter meta block
// is "filter.sstfilter.v1"). It is committed, never regenerated: it pins
// compatibility. LevelDB uses a table's filter only when the table was
// written under the Name() of the policy the DB is opened with, so if a
// later change renamed the policy, or stopped reading version-1 filter
// bytes, this test would see every absent key cost a table read. If it
// fails, fix the code, not the data.
//
// To write such a database (once per new format version, into a new
// folder; never over leveldb_v1), run the test binary itself (not ctest,
// which runs each test in its own process) with
//   SSTFILTER_WRITE_LEVELDB_GOLDEN=/path/to/new_dir
// The golden keys and values are defined here, not in shared test code, so
// that they cannot drift from what the files hold.

#include <leveldb/db.h>
#include <leveldb/write_batch.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>

#include "filters/cuckoo_filter.h"
#include "format/trailer.h"
#include "leveldb_adapter/leveldb_policy.h"
#include "leveldb_test_util.h"

namespace sstfilter {
namespace {

namespace fs = std::filesystem;

// Keys 0, 2, 4, ... are in the database; the odd ones sort between them
// and are absent. Bloom-policy tables hold [0, kSplit), cuckoo-policy
// tables [kSplit, kEnd).
constexpr uint64_t kSplit = 400;
constexpr uint64_t kEnd = 1200;

std::string GoldenKey(uint64_t i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "k%05llu", static_cast<unsigned long long>(i));
  return buf;
}
std::string GoldenValue(uint64_t i) { return "v" + std::to_string(i); }

// The files LevelDB needs to open the database; the rest (LOCK, LOG, an
// empty log) is made anew on open.
bool IsGoldenFile(const fs::path& p) {
  const std::string name = p.filename().string();
  return name == "CURRENT" || name.rfind("MANIFEST-", 0) == 0 || p.extension() == ".ldb";
}

// Writes the even keys of [first, end) with `policy` into the database at
// `dir` and compacts them into tables, leaving the other key range's
// tables alone.
void WritePart(const std::string& dir, const leveldb::FilterPolicy* policy,
               size_t block_size, uint64_t first, uint64_t end) {
  leveldb::Options options;
  options.create_if_missing = true;
  options.filter_policy = policy;
  options.block_size = block_size;
  // Readable by a LevelDB built without snappy too.
  options.compression = leveldb::kNoCompression;
  leveldb::DB* raw = nullptr;
  const leveldb::Status s = leveldb::DB::Open(options, dir, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<leveldb::DB> db(raw);
  leveldb::WriteBatch batch;
  for (uint64_t i = first; i < end; i += 2) batch.Put(GoldenKey(i), GoldenValue(i));
  ASSERT_TRUE(db->Write({}, &batch).ok());
  // Over this part's range only: a whole-range manual compaction would
  // rewrite the other part's tables under this part's policy.
  const std::string begin_key = GoldenKey(first), end_key = GoldenKey(end);
  const leveldb::Slice begin(begin_key), end_slice(end_key);
  db->CompactRange(&begin, &end_slice);
}

// Small blocks give the Bloom part small filters (Bloom filters); larger
// ones give the cuckoo part filters of a few hundred keys (cuckoo tables).
void WriteGoldenDatabase(const std::string& dir) {
  ASSERT_FALSE(fs::exists(dir) && !fs::is_empty(dir)) << dir << " is not empty";
  fs::create_directories(dir);
  auto bloom = NewLevelDBBloomFilterPolicy(10);
  auto cuckoo = NewLevelDBCuckooFilterPolicy(10);
  WritePart(dir, bloom.get(), 256, 0, kSplit);
  WritePart(dir, cuckoo.get(), 4096, kSplit, kEnd);
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!IsGoldenFile(entry.path())) fs::remove(entry.path());
  }
}

// Forwards to a policy, recording the kind byte of every filter read.
class KindRecordingPolicy : public leveldb::FilterPolicy {
 public:
  explicit KindRecordingPolicy(const leveldb::FilterPolicy* base) : base_(base) {}
  const char* Name() const override { return base_->Name(); }
  void CreateFilter(const leveldb::Slice* keys, int n, std::string* dst) const override {
    base_->CreateFilter(keys, n, dst);
  }
  bool KeyMayMatch(const leveldb::Slice& key, const leveldb::Slice& filter) const override {
    if (filter.size() >= kTrailerSize) kinds_.insert(filter[filter.size() - kTrailerSize]);
    return base_->KeyMayMatch(key, filter);
  }
  mutable std::set<int> kinds_;  // single-threaded test

 private:
  const leveldb::FilterPolicy* base_;
};

class LevelDBCompatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static bool written = false;  // once per process, before any check
    if (const char* out = std::getenv("SSTFILTER_WRITE_LEVELDB_GOLDEN"); out && !written) {
      written = true;
      WriteGoldenDatabase(out);
    }
    ASSERT_TRUE(fs::is_directory(golden_)) << golden_;
    for (const auto& entry : fs::directory_iterator(golden_)) {
      if (!IsGoldenFile(entry.path())) continue;
      fs::copy_file(entry.path(), fs::path(dir_.path()) / entry.path().filename());
      if (entry.path().extension() == ".ldb") tables_[entry.path().filename()] = entry.file_size();
    }
    ASSERT_FALSE(tables_.empty());
  }

  // Opens the copy with `policy` (may be null), every block read counted.
  std::unique_ptr<leveldb::DB> Open(const leveldb::FilterPolicy* policy) {
    return opener_.Open(dir_.path(), policy);
  }

  // Every written key is found with its value (which also opens every
  // table); then returns the table reads that all the absent keys cost.
  uint64_t CheckAndCountAbsentReads(const leveldb::FilterPolicy* policy) {
    auto db = Open(policy);
    if (db == nullptr) return 0;
    std::string value;
    uint64_t wrong = 0, found_absent = 0;
    for (uint64_t i = 0; i < kEnd; i += 2) {
      wrong += !db->Get({}, GoldenKey(i), &value).ok() || value != GoldenValue(i);
    }
    EXPECT_EQ(wrong, 0u) << "of " << kEnd / 2 << " written keys";
    opener_.ResetReads();
    for (uint64_t i = 1; i < kEnd; i += 2) {
      const leveldb::Status s = db->Get({}, GoldenKey(i), &value);
      EXPECT_TRUE(s.IsNotFound()) << GoldenKey(i) << ": " << s.ToString();
      found_absent += s.ok();
    }
    EXPECT_EQ(found_absent, 0u);
    return opener_.reads();
  }

  // The golden tables are read, never rewritten, by the checks.
  void ExpectTablesUntouched() {
    std::map<fs::path, uintmax_t> now;
    for (const auto& entry : fs::directory_iterator(dir_.path())) {
      if (entry.path().extension() == ".ldb") now[entry.path().filename()] = entry.file_size();
    }
    EXPECT_EQ(now, tables_);
  }

  const std::string golden_ = std::string(SSTFILTER_TEST_DATA_DIR) + "/leveldb_v1";
  test::TempDir dir_;
  std::map<fs::path, uintmax_t> tables_;  // name -> size, as committed
  test::CountingOpener opener_;
};

constexpr uint64_t kAbsent = kEnd / 2;

TEST_F(LevelDBCompatTest, TablesCarryTheFixedPolicyName) {
  EXPECT_STREQ(kLevelDBPolicyName, "sstfilter.v1");
  EXPECT_STREQ(NewLevelDBCuckooFilterPolicy(10)->Name(), kLevelDBPolicyName);
  for (const auto& [name, size] : tables_) {
    std::ifstream in(fs::path(golden_) / name, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(bytes.find(std::string("filter.") + kLevelDBPolicyName), std::string::npos) << name;
  }
}

TEST_F(LevelDBCompatTest, EveryTodaysPolicyStillFiltersVersion1Tables) {
  // Without a filter nearly every absent key costs a data-block read (all
  // but the one between the two parts' tables).
  const uint64_t without = CheckAndCountAbsentReads(nullptr);
  EXPECT_GE(without, kAbsent * 9 / 10);
  // With one, ~1-2% of them at 10 bits/key: ~10 expected, 60 is far out.
  for (const std::string& type : test::LevelDBPolicyTypes()) {
    auto policy = test::PolicyOrDie(type, 10);
    const uint64_t with = CheckAndCountAbsentReads(policy.get());
    EXPECT_LE(with, kAbsent / 10) << type << " (" << without << " without a filter)";
    std::cout << type << ": table reads for " << kAbsent << " absent keys: " << with
              << " with the filter, " << without << " without\n";
  }
  ExpectTablesUntouched();
}

TEST_F(LevelDBCompatTest, GoldenTablesHoldBloomAndCuckooFilters) {
  auto cuckoo = NewLevelDBCuckooFilterPolicy(10);
  KindRecordingPolicy recording(cuckoo.get());
  CheckAndCountAbsentReads(&recording);
  EXPECT_EQ(recording.kinds_.count(static_cast<int>(kBloomKind)), 1u);
  EXPECT_GE(recording.kinds_.count(static_cast<int>(kCuckooPlainKind)) +
                recording.kinds_.count(static_cast<int>(kCuckooSemiSortedKind)),
            1u)
      << "no cuckoo filter was read";
  ExpectTablesUntouched();
}

}  // namespace
}  // namespace sstfilter
