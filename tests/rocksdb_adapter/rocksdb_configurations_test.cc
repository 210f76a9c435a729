// The configurations production RocksDB users run, each against every
// sstfilter kind on a real DB: every written key is found, absent keys
// are filtered (the data blocks their lookups read, counted by the block
// cache), and the SSTs name the sstfilter policy. A configuration a
// release lacks is skipped with the reason; the quick tier
// (SSTFILTER_QUICK=1, tools/scripts/test.sh --quick) runs the bumped
// ribbon filter only. docs/guide/configurations.md lists the results.
//
// Keys: groups of five, "a<6-digit group>:<4-digit item>"; written keys
// are in even groups, absent ones in odd groups, so an absent key sorts
// inside the written range (its lookup would read a data block but for
// the filter) and, under a 7-byte prefix extractor, has an absent prefix.

#include <gtest/gtest.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/version.h>
#include <sstfilter/sstfilter.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb_adapter/configurations.h"
#include "rocksdb_adapter/db_open.h"
#include "rocksdb_adapter/rocksdb_test_util.h"

namespace sstfilter {
namespace {

using test::Configuration;
using test::Configurations;
using test::Shape;
using test::TimestampOf;

constexpr int kGroups = 1000;
constexpr int kItems = 5;
constexpr size_t kPrefix = test::kConfigPrefix;

std::string Key(int group, int item) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "a%06d:%04d", group, item);
  return buf;
}
std::string Written(int i) { return Key(2 * (i / kItems), i % kItems); }
std::string Absent(int i) { return Key(2 * (i / kItems) + 1, i % kItems); }
constexpr int kKeys = kGroups * kItems;

const char* const kKinds[] = {"bloom", "cuckoo", "fuse", "burr"};

using Param = std::tuple<size_t, const char*>;  // (configuration index, kind)

class ConfigurationTest : public ::testing::TestWithParam<Param> {};

// Data blocks read by the block cache so far (hits and misses).
uint64_t DataBlockReads(const rocksdb::Options& o) {
  return test::Ticker(o, rocksdb::BLOCK_CACHE_DATA_MISS) +
         test::Ticker(o, rocksdb::BLOCK_CACHE_DATA_HIT);
}

rocksdb::Status OpenReader(const rocksdb::Options& options, const std::string& path,
                           Shape::Reader reader, std::unique_ptr<rocksdb::DB>* db) {
#if SSTFILTER_HAS_UNIQUE_PTR_OPEN
  if (reader == Shape::Reader::kReadOnly) return rocksdb::DB::OpenForReadOnly(options, path, db);
  return rocksdb::DB::OpenAsSecondary(options, path, path + "/secondary", db);
#else
  rocksdb::DB* raw = nullptr;
  const rocksdb::Status s =
      reader == Shape::Reader::kReadOnly
          ? rocksdb::DB::OpenForReadOnly(options, path, &raw)
          : rocksdb::DB::OpenAsSecondary(options, path, path + "/secondary", &raw);
  db->reset(raw);
  return s;
#endif
}

TEST_P(ConfigurationTest, EveryKeyFoundAbsentKeysFiltered) {
  const Configuration config = Configurations()[std::get<0>(GetParam())];
  const std::string kind = std::get<1>(GetParam());
  if (std::getenv("SSTFILTER_QUICK") != nullptr && kind != "burr") {
    GTEST_SKIP() << "the quick tier runs one filter (burr)";
  }
  rocksdb::Options options;
  options.create_if_missing = true;
  options.statistics = rocksdb::CreateDBStatistics();
  rocksdb::BlockBasedTableOptions table;
  std::string policy = "sstfilter." + kind;
  const std::string skip = config.set(&options, &table, &policy);
  if (!skip.empty()) GTEST_SKIP() << config.name << ": " << skip;
  rocksdb::ConfigOptions parse;
  ASSERT_TRUE(rocksdb::FilterPolicy::CreateFromString(parse, policy, &table.filter_policy).ok())
      << policy;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  ASSERT_TRUE(CheckFilterPolicyInEffect(options).ok());
  const Shape& shape = config.shape;
  const std::string ts = TimestampOf(1);
  const rocksdb::Slice ts_slice(ts);

  test::TempDir dir;
  std::unique_ptr<rocksdb::DB> db;
  rocksdb::Status s = OpenDB(options, dir.path(), &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  if (shape.bottom_sentinel) {
    ASSERT_TRUE(db->Put({}, "z", "v").ok());
    ASSERT_TRUE(db->Flush({}).ok());
    ASSERT_TRUE(db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
  }
  if (shape.ingest) {
    rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
    const std::string file = dir.path() + "/ingest.sst";
    ASSERT_TRUE(writer.Open(file).ok());
    for (int i = 0; i < kKeys; ++i) ASSERT_TRUE(writer.Put(Written(i), "v").ok());
    ASSERT_TRUE(writer.Finish().ok());
    s = db->IngestExternalFile({file}, rocksdb::IngestExternalFileOptions());
    ASSERT_TRUE(s.ok()) << s.ToString();
  } else {
    for (int i = 0; i < kKeys; ++i) {
      s = shape.timestamps ? db->Put({}, Written(i), ts_slice, "v") : db->Put({}, Written(i), "v");
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    ASSERT_TRUE(db->Flush({}).ok());
    if (shape.compact) {
      ASSERT_TRUE(db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
    }
  }
  rocksdb::TablePropertiesCollection tables;
  ASSERT_TRUE(db->GetPropertiesOfAllTables(&tables).ok());
  ASSERT_FALSE(tables.empty());
  for (const auto& t : tables) {
    if (t.second->num_entries == 1) continue;  // the sentinel's, unfiltered
    EXPECT_EQ(t.second->filter_policy_name.rfind("sstfilter." + kind, 0), 0u)
        << t.first << ": " << t.second->filter_policy_name;
  }

  // The reader: this DB, or a read-only or secondary instance over it.
  rocksdb::DB* reader = db.get();
  std::unique_ptr<rocksdb::DB> other;
  if (shape.reader != Shape::Reader::kPrimary) {
    if (shape.reader == Shape::Reader::kReadOnly) db.reset();
    rocksdb::Options reader_options = options;
    reader_options.max_open_files = -1;  // required of a secondary
    s = OpenReader(reader_options, dir.path(), shape.reader, &other);
    ASSERT_TRUE(s.ok()) << s.ToString();
    if (shape.reader == Shape::Reader::kSecondary) {
      ASSERT_TRUE(other->TryCatchUpWithPrimary().ok());
    }
    reader = other.get();
  }
  rocksdb::ReadOptions read;
  if (shape.timestamps) read.timestamp = &ts_slice;
  std::string value;
  int missing = 0;
  for (int i = 0; i < kKeys; ++i) missing += reader->Get(read, Written(i), &value).ok() ? 0 : 1;
  EXPECT_EQ(missing, 0);

  const uint64_t before = DataBlockReads(options);
  int found = 0;
  for (int i = 0; i < kKeys; ++i) found += reader->Get(read, Absent(i), &value).ok() ? 1 : 0;
  EXPECT_EQ(found, 0);
  const uint64_t reads = DataBlockReads(options) - before;
  // At 10 bits/key nearly every absent lookup is answered by the filter;
  // without one, each would read a data block.
  EXPECT_LT(reads, static_cast<uint64_t>(kKeys / 10)) << reads << " data blocks read";

  if (shape.prefix_only || config.name == std::string("prefix_and_whole_key") ||
      config.name == std::string("partitioned_prefix")) {
    // Prefix seeks: a written group's five keys, and nothing for an absent
    // one, by prefix_same_as_start and by auto_prefix_mode.
    for (int g = 0; g < 20; ++g) {
      for (bool auto_mode : {false, true}) {
        rocksdb::ReadOptions ro = read;
        const std::string lower = Key(g, 0).substr(0, kPrefix);
        const std::string upper = Key(g + 1, 0).substr(0, kPrefix);
        rocksdb::Slice upper_slice(upper);
        if (auto_mode) {
          ro.auto_prefix_mode = true;
          ro.iterate_upper_bound = &upper_slice;
        } else {
          ro.prefix_same_as_start = true;
        }
        std::unique_ptr<rocksdb::Iterator> it(reader->NewIterator(ro));
        int n = 0;
        for (it->Seek(lower); it->Valid() && it->key().starts_with(lower); it->Next()) ++n;
        EXPECT_TRUE(it->status().ok()) << it->status().ToString();
        EXPECT_EQ(n, g % 2 == 0 ? kItems : 0) << "group " << g << (auto_mode ? " auto" : "");
      }
    }
  }
}

std::string NameOf(const ::testing::TestParamInfo<Param>& info) {
  return std::string(Configurations()[std::get<0>(info.param)].name) + "_" +
         std::get<1>(info.param);
}

INSTANTIATE_TEST_SUITE_P(
    All, ConfigurationTest,
    ::testing::Combine(::testing::Range<size_t>(0, Configurations().size()),
                       ::testing::ValuesIn(kKinds)),
    NameOf);

}  // namespace
}  // namespace sstfilter
