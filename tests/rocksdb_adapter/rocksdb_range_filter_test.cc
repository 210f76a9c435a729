// The range filter on real DBs (sstfilter/range_filter.h): scans through
// RangeScan return exactly what unfiltered scans return, over every entry
// type, range deletions, snapshots, L0 and deeper levels, ingested files
// with and without the collector, and SSTs written before the collector was
// added; the filter skips SSTs; options strings and OPTIONS files configure
// the collector; and this RocksDB applies a skipped SST's range tombstones.

#include <gtest/gtest.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/options_util.h>
#include <sstfilter/range_filter.h>
#include <sstfilter/sstfilter.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "guard/guard_test_util.h"  // AppendOperator
#include "rocksdb_adapter/db_open.h"
#include "range/range_test_util.h"
#include "rocksdb_test_util.h"

namespace sstfilter {
namespace {

std::string UserKey(uint64_t id) { return test::Key(test::Shape::kUserDecimal, id); }
uint64_t Rand(uint64_t* state) { return test::SplitMix(state); }

rocksdb::Options BaseOptions(bool collector) {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.disable_auto_compactions = true;  // shapes built explicitly below
  o.merge_operator = std::make_shared<test::AppendOperator>();
  o.num_levels = 5;
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy = NewCuckooFilterPolicy(12);
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  if (collector) o.table_properties_collector_factories.push_back(NewRangeFilterCollectorFactory());
  return o;
}

// What a scan of [lo, hi) returns: keys and values in order.
std::vector<std::pair<std::string, std::string>> Collect(rocksdb::Iterator* it) {
  std::vector<std::pair<std::string, std::string>> out;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    out.emplace_back(it->key().ToString(), it->value().ToString());
  }
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  return out;
}

constexpr uint64_t kIds = 2000000;  // the ids keys are drawn from

class RangeFilterDbTest : public ::testing::Test {
 protected:
  // The SSTs the filter skipped, and the scans whose results differed.
  struct Tally {
    uint64_t scans = 0, empty = 0, asked = 0, skipped = 0, differences = 0;
  };

  // `scans` random scans of 1 to 64 ids, each run plainly and through the
  // range filter; with `snapshot`, at it.
  void CompareScans(rocksdb::DB* db, uint64_t scans, const rocksdb::Snapshot* snapshot,
                    Tally* tally) {
    uint64_t state = tally->scans + 1;
    for (uint64_t i = 0; i < scans; ++i) {
      const uint64_t lo = Rand(&state) % kIds, length = 1 + Rand(&state) % 64;
      const std::string lower = UserKey(lo), upper = UserKey(lo + length);
      rocksdb::ReadOptions plain;
      plain.snapshot = snapshot;
      const rocksdb::Slice lo_slice(lower), hi_slice(upper);
      plain.iterate_lower_bound = &lo_slice;
      plain.iterate_upper_bound = &hi_slice;
      std::unique_ptr<rocksdb::Iterator> reference(db->NewIterator(plain));
      const auto expected = Collect(reference.get());
      // Through the helper, with a table filter of the caller's that
      // counts what the range filter decided.
      rocksdb::ReadOptions filtered;
      filtered.snapshot = snapshot;
      const auto decide = RangeTableFilter(lower, upper);
      filtered.table_filter = [&](const rocksdb::TableProperties& p) {
        ++tally->asked;
        tally->skipped += decide(p) ? 0 : 1;
        return true;  // RangeScan's own filter decides
      };
      RangeScan scan(db, filtered, db->DefaultColumnFamily(), lower, upper);
      const auto got = Collect(scan.get());
      tally->differences += got == expected ? 0 : 1;
      tally->empty += expected.empty() ? 1 : 0;
      ++tally->scans;
    }
  }

  test::TempDir dir_;
};

// One random write of any entry type to an id in [0, kIds).
rocksdb::Status WriteOne(rocksdb::DB* db, uint64_t* state, int i) {
  const uint64_t id = Rand(state) % kIds;
  const std::string k = UserKey(id), v = "v" + std::to_string(i);
  // SingleDelete's keys apart, ids 7j + 1, each put once and then
  // single-deleted once (its contract); the one DB of the test that writes.
  if (id % 7 == 1) {
    static std::map<uint64_t, int> turns;  // per id: 0 none, 1 put, 2 deleted
    int& turn = turns[id];
    if (turn == 2) return rocksdb::Status::OK();
    return turn++ == 0 ? db->Put({}, k, v) : db->SingleDelete({}, k);
  }
  // Entities and merges on keys apart: RocksDB 7.8 cannot merge onto an
  // entity.
  if (id % 7 == 0) {
    return Rand(state) % 4 == 0 ? db->Delete({}, k)
                                : db->PutEntity({}, db->DefaultColumnFamily(), k, {{"c", v}});
  }
  switch (Rand(state) % 10) {
    case 0:
    case 1: return db->Delete({}, k);
    case 2:
    case 3: return db->Merge({}, k, v);
    case 4:
      if (Rand(state) % 50 == 0) {
        // Up to 2,000 ids: wide enough to cover keys of older SSTs.
        return db->DeleteRange({}, db->DefaultColumnFamily(), k,
                               UserKey(id + 1 + Rand(state) % 2000));
      }
      [[fallthrough]];
    default: return db->Put({}, k, v);
  }
}

// `writes` random writes, flushed into a file every `per_file`.
void Write(rocksdb::DB* db, uint64_t* state, int writes, int per_file) {
  for (int i = 0; i < writes; ++i) {
    const rocksdb::Status s = WriteOne(db, state, i);
    ASSERT_TRUE(s.ok()) << s.ToString();
    if ((i + 1) % per_file == 0) {
      const rocksdb::Status f = db->Flush(rocksdb::FlushOptions());
      ASSERT_TRUE(f.ok()) << f.ToString();
    }
  }
}

// An external file of `n` puts from `first`, every `step` ids.
std::string ExternalFile(const rocksdb::Options& options, const std::string& path,
                         uint64_t first, uint64_t step, int n) {
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
  EXPECT_TRUE(writer.Open(path).ok());
  for (int i = 0; i < n; ++i) EXPECT_TRUE(writer.Put(UserKey(first + step * i), "ext").ok());
  EXPECT_TRUE(writer.Finish().ok());
  return path;
}

TEST_F(RangeFilterDbTest, FilteredScansReturnExactlyWhatPlainScansReturn) {
  const bool quick = std::getenv("SSTFILTER_QUICK") != nullptr;
  const uint64_t scans_per_round = quick ? 5000 : 450000;  // over 1M scans in all
  uint64_t state = 42;
  Tally tally;
  // Written before the collector was added: its SSTs have no range filter.
  {
    std::unique_ptr<rocksdb::DB> db;
    ASSERT_TRUE(OpenDB(BaseOptions(false), dir_.path(), &db).ok());
    Write(db.get(), &state, 4000, 2000);
    ASSERT_TRUE(db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
  }
  std::unique_ptr<rocksdb::DB> db;
  ASSERT_TRUE(OpenDB(BaseOptions(true), dir_.path(), &db).ok());
  // Deeper levels: files compacted to L2 and L1, then L0 files above them.
  Write(db.get(), &state, 20000, 2500);
  rocksdb::CompactRangeOptions to_l2;
  to_l2.change_level = true;
  to_l2.target_level = 2;
  const rocksdb::Status moved = db->CompactRange(to_l2, nullptr, nullptr);
  ASSERT_TRUE(moved.ok()) << moved.ToString();
  Write(db.get(), &state, 8000, 2000);
  const std::string mid_lo = UserKey(500000), mid_hi = UserKey(1500000);
  const rocksdb::Slice mid_lo_slice(mid_lo), mid_hi_slice(mid_hi);
  ASSERT_TRUE(db->CompactRange(rocksdb::CompactRangeOptions(), &mid_lo_slice, &mid_hi_slice).ok());
  const rocksdb::Snapshot* snapshot = db->GetSnapshot();
  Write(db.get(), &state, 6000, 1500);  // L0 files over the snapshot
  // Ingested: with the collector (the DB's options) and without.
  rocksdb::Options plain_writer = BaseOptions(false);
  ASSERT_TRUE(db->IngestExternalFile({ExternalFile(BaseOptions(true), dir_.path() + "/with.sst",
                                                   kIds + 10, 3, 500)},
                                     rocksdb::IngestExternalFileOptions())
                  .ok());
  ASSERT_TRUE(db->IngestExternalFile({ExternalFile(plain_writer, dir_.path() + "/without.sst",
                                                   kIds + 20000, 5, 500)},
                                     rocksdb::IngestExternalFileOptions())
                  .ok());
  std::string levels;
  ASSERT_TRUE(db->GetProperty("rocksdb.num-files-at-level0", &levels));
  EXPECT_GT(std::stoi(levels), 2);
  CompareScans(db.get(), scans_per_round, nullptr, &tally);
  CompareScans(db.get(), scans_per_round / 4, snapshot, &tally);
  db->ReleaseSnapshot(snapshot);
  // After a full compaction, every SST has the collector's filter.
  ASSERT_TRUE(db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
  Write(db.get(), &state, 3000, 1000);
  CompareScans(db.get(), scans_per_round, nullptr, &tally);
  std::printf("range filter: %llu scans (%llu empty), %llu SSTs asked, %llu skipped\n",
              static_cast<unsigned long long>(tally.scans),
              static_cast<unsigned long long>(tally.empty),
              static_cast<unsigned long long>(tally.asked),
              static_cast<unsigned long long>(tally.skipped));
  EXPECT_EQ(tally.differences, 0u);
  EXPECT_GT(tally.skipped, tally.asked / 4);  // the filter does its work
}

TEST_F(RangeFilterDbTest, ASkippedSstsRangeTombstonesStillApply) {
  // RocksDB's behaviour the filter relies on least (it admits any SST with
  // a range tombstone anyway): an SST the table_filter skips still has its
  // range tombstones applied to the others, on this version.
  std::unique_ptr<rocksdb::DB> db;
  ASSERT_TRUE(OpenDB(BaseOptions(true), dir_.path(), &db).ok());
  for (uint64_t id = 0; id < 100; ++id) ASSERT_TRUE(db->Put({}, UserKey(id), "v").ok());
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  ASSERT_TRUE(
      db->DeleteRange({}, db->DefaultColumnFamily(), UserKey(10), UserKey(20)).ok());
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  rocksdb::ReadOptions ro;
  uint64_t skipped = 0;
  ro.table_filter = [&](const rocksdb::TableProperties& p) {
    const bool skip = p.num_range_deletions > 0;
    skipped += skip ? 1 : 0;
    return !skip;
  };
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro));
  size_t seen = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++seen;
  EXPECT_EQ(skipped, 1u);
  EXPECT_EQ(seen, 90u) << "a skipped SST's range tombstone was not applied";
}

TEST(RangeFilterOptionsTest, OptionsStringsAndOptionsFilesConfigureTheCollector) {
  // The forms RocksDB's options strings take for table_properties_collectors.
  // (The list's separator is ':', so "sstfilter.range:12" is two
  // elements there; the braced form sets bits_per_key.)
  const std::pair<const char*, const char*> kForms[] = {
      {"table_properties_collectors=sstfilter.range", "16"},
      {"table_properties_collectors={{id=sstfilter.range;bits_per_key=12}}", "12"},
      {"table_properties_collectors={{id=sstfilter.range;bits_per_key=12}:"
       "{id=sstfilter.range;bits_per_key=20}}",
       "12"},
  };
  for (const auto& [form, bits] : kForms) {
    SCOPED_TRACE(form);
    rocksdb::ColumnFamilyOptions cf;
    const rocksdb::Status s =
        rocksdb::GetColumnFamilyOptionsFromString(rocksdb::ConfigOptions(), {}, form, &cf);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_GE(cf.table_properties_collector_factories.size(), 1u);
    const auto& f = cf.table_properties_collector_factories[0];
    EXPECT_STREQ(f->Name(), "sstfilter.range");
    std::string value;
    ASSERT_TRUE(f->GetOption(rocksdb::ConfigOptions(), "bits_per_key", &value).ok());
    EXPECT_EQ(std::stod(value), std::stod(bits));
  }
  // The factory by itself takes the short form too.
  std::shared_ptr<rocksdb::TablePropertiesCollectorFactory> factory;
  ASSERT_TRUE(rocksdb::TablePropertiesCollectorFactory::CreateFromString(
                  rocksdb::ConfigOptions(), "sstfilter.range:12", &factory)
                  .ok());
  std::string bits;
  ASSERT_TRUE(factory->GetOption(rocksdb::ConfigOptions(), "bits_per_key", &bits).ok());
  EXPECT_EQ(std::stod(bits), 12);
  EXPECT_FALSE(rocksdb::TablePropertiesCollectorFactory::CreateFromString(
                   rocksdb::ConfigOptions(), "sstfilter.range:99", &factory)
                   .ok());
  // An OPTIONS file written by a DB with the collector opens with it again.
  test::TempDir dir;
  {
    std::unique_ptr<rocksdb::DB> db;
    ASSERT_TRUE(OpenDB(BaseOptions(true), dir.path(), &db).ok());
  }
  rocksdb::DBOptions db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  rocksdb::ConfigOptions config;
  ASSERT_TRUE(rocksdb::LoadLatestOptions(config, dir.path(), &db_options, &cfs).ok());
  ASSERT_EQ(cfs[0].options.table_properties_collector_factories.size(), 1u);
  EXPECT_STREQ(cfs[0].options.table_properties_collector_factories[0]->Name(),
               "sstfilter.range");
}

TEST(RangeFilterOptionsTest, BadBitsPerKeyIsAClearError) {
  EXPECT_THROW(NewRangeFilterCollectorFactory({/*bits_per_key=*/2}), std::invalid_argument);
  rocksdb::ColumnFamilyOptions cf;
  const rocksdb::Status s = rocksdb::GetColumnFamilyOptionsFromString(
      rocksdb::ConfigOptions(), {},
      "table_properties_collectors={{id=sstfilter.range;bits_per_key=99}}", &cf);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("sstfilter.range: bits_per_key 99 is out of range"),
            std::string::npos)
      << s.ToString();
}

}  // namespace
}  // namespace sstfilter
