// Changing the filter policy of a live DB, in each direction, one row of
// docs/policy_switches.md per test: every key must read back after each
// switch, and filter use is counted per SST. Batch b of keys is flushed
// into its own level-0 SST, the batches' key ranges do not overlap, and
// there are at least kTables of them: RocksDB checks level-0 files' key
// ranges only when there are more than 3 (with fewer, every Get visits
// every file). So an absent key inside batch b's range visits that SST
// alone, and the lookups its filter rules out are the
// rocksdb.bloom.filter.useful counts for those keys.
// The last case runs stock `ldb` without the plugin, where RocksDB
// silently runs with no filter.

#include <rocksdb/filter_policy.h>
#include <rocksdb/utilities/options_util.h>
#include <sstfilter/migrate.h>
#include <sstfilter/sstfilter.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <thread>

#include "rocksdb/db_open.h"
#include "rocksdb_test_util.h"
#include "util/skipping_sleep_env.h"

namespace sstfilter {
namespace {

using test::AbsentKeyAt;
using test::KeyAt;
using test::Ticker;
using Policy = std::shared_ptr<const rocksdb::FilterPolicy>;

constexpr uint64_t kBatch = 30000;
constexpr uint64_t kTables = 4;
constexpr uint64_t kAbsentPerBatch = kBatch / 10;
// A filtered SST rules out nearly every absent key (FPR 1-2% here); an
// unfiltered one none.
constexpr uint64_t kFiltered = kAbsentPerBatch * 9 / 10;

Policy Builtin() { return Policy(rocksdb::NewBloomFilterPolicy(10)); }
Policy Ribbon() { return Policy(rocksdb::NewRibbonFilterPolicy(10)); }
Policy Ours(const char* type, double bits, Compat compat = Compat::kSstfilter) {
  Policy p;
  EXPECT_TRUE(NewFilterPolicy(type, bits, compat, &p).ok());
  return p;
}

class PolicySwitchTest : public ::testing::Test {
 protected:
  // Opens the DB with `policy` (nullptr: no filter), writes batch `batch`
  // of keys and flushes it into its own SST.
  void WriteBatchWith(Policy policy, uint64_t batch) {
    auto db = Open(policy);
    for (uint64_t i = batch * kBatch; i < (batch + 1) * kBatch; ++i) {
      ASSERT_TRUE(db->Put({}, KeyAt(i), "v" + std::to_string(i)).ok());
    }
    ASSERT_TRUE(db->Flush({}).ok());
  }

  std::unique_ptr<rocksdb::DB> Open(Policy policy) {
    rocksdb::BlockBasedTableOptions table;
    table.filter_policy = std::move(policy);
    if (partitioned_) {
      table.partition_filters = true;
      table.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
      table.metadata_block_size = 1024;  // several partitions per SST
    }
    options_ = rocksdb::Options();
    options_.create_if_missing = true;
    options_.disable_auto_compactions = true;  // keep each batch's SST
    options_.statistics = rocksdb::CreateDBStatistics();
    options_.env = &env_;
    options_.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    std::unique_ptr<rocksdb::DB> db;
    EXPECT_TRUE(sstfilter::OpenDB(options_, dir_.path(), &db).ok());
    return db;
  }

  // Every key of batches [0, batches) reads back with its value.
  void ReadBack(rocksdb::DB* db, uint64_t batches) {
    std::string value;
    for (uint64_t i = 0; i < batches * kBatch; ++i) {
      EXPECT_TRUE(db->Get({}, KeyAt(i), &value).ok()) << KeyAt(i);
      if (value != "v" + std::to_string(i)) {
        ADD_FAILURE() << KeyAt(i);
        break;
      }
    }
  }

  // Absent-key lookups inside batch `batch`'s range that its SST's filter
  // ruled out.
  uint64_t UsefulIn(rocksdb::DB* db, uint64_t batch) {
    std::string value;
    const uint64_t before = Ticker(options_, rocksdb::BLOOM_FILTER_USEFUL);
    for (uint64_t j = 0; j < kAbsentPerBatch; ++j) {
      EXPECT_TRUE(db->Get({}, AbsentKeyAt(batch * kBatch + j * 10), &value).IsNotFound());
    }
    return Ticker(options_, rocksdb::BLOOM_FILTER_USEFUL) - before;
  }

  // filter_policy_name of each SST, by file.
  std::map<std::string, std::string> FilterOfEachTable(rocksdb::DB* db) {
    rocksdb::TablePropertiesCollection props;
    EXPECT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
    std::map<std::string, std::string> out;
    for (const auto& p : props) out[p.first] = p.second->filter_policy_name;
    return out;
  }

  static size_t Count(const std::map<std::string, std::string>& m, const std::string& v) {
    size_t n = 0;
    for (const auto& e : m) n += e.second == v;
    return n;
  }

  // One row: batch 0 written under `before`, batches 1 to kTables - 1
  // under `after`, read under `after`. Returns {useful in batch 0's SST,
  // in batch 1's}.
  std::pair<uint64_t, uint64_t> Switch(Policy before, Policy after) {
    WriteBatchWith(before, 0);
    for (uint64_t b = 1; b < kTables; ++b) WriteBatchWith(after, b);
    auto db = Open(after);
    const auto tables = FilterOfEachTable(db.get());
    EXPECT_EQ(tables.size(), kTables);
    EXPECT_GE(Count(tables, before->Name()), 1u);
    EXPECT_GE(Count(tables, after->Name()), kTables - 1);
    ReadBack(db.get(), kTables);
    return {UsefulIn(db.get(), 0), UsefulIn(db.get(), 1)};
  }

  test::SkippingSleepEnv env_;  // outlives every DB the tests open
  test::TempDir dir_;
  rocksdb::Options options_;
  bool partitioned_ = false;
};

// Row 1: without compat=builtin, the built-in SST is read unfiltered.
TEST_F(PolicySwitchTest, BuiltinToSstFilterReadsOldSstsUnfiltered) {
  const auto [old_sst, new_sst] = Switch(Builtin(), Ours("cuckoo", 12));
  EXPECT_EQ(old_sst, 0u);
  EXPECT_GT(new_sst, kFiltered);
}

// Row 2: with compat=builtin, old SSTs keep their built-in filters.
TEST_F(PolicySwitchTest, BuiltinToSstFilterCompatBuiltinKeepsOldFilters) {
  const auto [old_sst, new_sst] = Switch(Builtin(), Ours("cuckoo", 12, Compat::kBuiltin));
  EXPECT_GT(old_sst, kFiltered);
  EXPECT_GT(new_sst, kFiltered);
}

TEST_F(PolicySwitchTest, RibbonToSstFilterCompatBuiltinKeepsOldFilters) {
  const auto [old_sst, new_sst] = Switch(Ribbon(), Ours("bloom", 10, Compat::kBuiltin));
  EXPECT_GT(old_sst, kFiltered);
  EXPECT_GT(new_sst, kFiltered);
}

TEST_F(PolicySwitchTest, PartitionedBuiltinToSstFilterCompatBuiltinKeepsOldFilters) {
  partitioned_ = true;
  const auto [old_sst, new_sst] = Switch(Builtin(), Ours("cuckoo", 12, Compat::kBuiltin));
  EXPECT_GT(old_sst, kFiltered);
  EXPECT_GT(new_sst, kFiltered);
}

// Row 3: back to the built-in filter. Default family: never found.
TEST_F(PolicySwitchTest, SstFilterToBuiltinReadsOurSstsUnfiltered) {
  const auto [old_sst, new_sst] = Switch(Ours("cuckoo", 12), Builtin());
  EXPECT_EQ(old_sst, 0u);
  EXPECT_GT(new_sst, kFiltered);
}

// Row 4: back from compat=builtin: the built-in reader finds our bytes
// and answers "may match" for every key (the guard), never a wrong "no".
TEST_F(PolicySwitchTest, SstFilterCompatBuiltinToBuiltinReadsOurSstsAsMayMatch) {
  const auto [old_sst, new_sst] = Switch(Ours("cuckoo", 12, Compat::kBuiltin), Builtin());
  EXPECT_EQ(old_sst, 0u);
  EXPECT_GT(new_sst, kFiltered);
}

// Row 5: within one family every sstfilter filter is read.
TEST_F(PolicySwitchTest, SstFilterBloomToCuckooKeepsEveryFilter) {
  const auto [old_sst, new_sst] = Switch(Ours("bloom", 10), Ours("cuckoo", 12));
  EXPECT_GT(old_sst, kFiltered);
  EXPECT_GT(new_sst, kFiltered);
}

TEST_F(PolicySwitchTest, CompatBuiltinBloomToCuckooKeepsEveryFilter) {
  const auto [old_sst, new_sst] =
      Switch(Ours("bloom", 10, Compat::kBuiltin), Ours("cuckoo", 12, Compat::kBuiltin));
  EXPECT_GT(old_sst, kFiltered);
  EXPECT_GT(new_sst, kFiltered);
}

// Row 6: between the two families: the other family's SSTs are unfiltered.
TEST_F(PolicySwitchTest, SstFilterToCompatBuiltinReadsOldSstsUnfiltered) {
  const auto [old_sst, new_sst] = Switch(Ours("cuckoo", 12), Ours("cuckoo", 12, Compat::kBuiltin));
  EXPECT_EQ(old_sst, 0u);
  EXPECT_GT(new_sst, kFiltered);
}

TEST_F(PolicySwitchTest, CompatBuiltinToSstFilterReadsOldSstsUnfiltered) {
  const auto [old_sst, new_sst] = Switch(Ours("cuckoo", 12, Compat::kBuiltin), Ours("cuckoo", 12));
  EXPECT_EQ(old_sst, 0u);
  EXPECT_GT(new_sst, kFiltered);
}

// A forced compaction rewrites every SST under the configured policy.
TEST_F(PolicySwitchTest, ForcedCompactionRewritesUnderTheNewPolicy) {
  WriteBatchWith(Builtin(), 0);
  WriteBatchWith(Ours("cuckoo", 12), 1);
  auto db = Open(Ours("cuckoo", 12));
  rocksdb::CompactRangeOptions cro;
  cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  ASSERT_TRUE(db->CompactRange(cro, nullptr, nullptr).ok());
  for (const auto& t : FilterOfEachTable(db.get())) EXPECT_EQ(t.second, "sstfilter.cuckoo");
  ReadBack(db.get(), 2);
  EXPECT_GT(UsefulIn(db.get(), 0), kFiltered);
  EXPECT_GT(UsefulIn(db.get(), 1), kFiltered);
}

// For what a switch cannot keep: MigrateFilters rewrites exactly the SSTs
// whose filter the configured policy cannot read, resumably, with every
// key readable while it runs.
TEST_F(PolicySwitchTest, MigrateRewritesOnlyUnreadableSstsResumably) {
  for (uint64_t b = 0; b < kTables; ++b) WriteBatchWith(Builtin(), b);
  WriteBatchWith(Ours("bloom", 10), kTables);  // readable: same family
  auto db = Open(Ours("cuckoo", 12));
  EXPECT_EQ(UsefulIn(db.get(), 0), 0u);

  MigrateOptions options;
  options.dry_run = true;
  MigrateProgress progress;
  ASSERT_TRUE(MigrateFilters(db.get(), db->DefaultColumnFamily(), options, {}, &progress).ok());
  EXPECT_EQ(progress.files_to_rewrite, kTables);
  EXPECT_EQ(progress.files_rewritten, 0u);
  EXPECT_EQ(Count(FilterOfEachTable(db.get()), "bloomfilter"), kTables);

  // Half of it, with a reader checking every key meanwhile.
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> reads{0}, wrong{0};
  std::thread reader([&] {
    std::string value;
    for (uint64_t i = 0; !stop; i = (i + 7919) % ((kTables + 1) * kBatch)) {
      const rocksdb::Status st = db->Get({}, KeyAt(i), &value);
      wrong += !st.ok() || value != "v" + std::to_string(i);
      ++reads;
    }
  });
  options.dry_run = false;
  options.max_files = 2;
  std::vector<std::string> seen;
  ASSERT_TRUE(MigrateFilters(db.get(), db->DefaultColumnFamily(), options,
                             [&](const MigrateProgress& p) { seen.push_back(p.old_policy); },
                             &progress)
                  .ok());
  EXPECT_EQ(progress.files_rewritten, 2u);
  EXPECT_EQ(progress.files_remaining, kTables - 2);
  EXPECT_EQ(seen, std::vector<std::string>(2, "bloomfilter"));

  // Resumed: the rest, and nothing else.
  options.max_files = 0;
  ASSERT_TRUE(MigrateFilters(db.get(), db->DefaultColumnFamily(), options, {}, &progress).ok());
  EXPECT_EQ(progress.files_to_rewrite, kTables - 2);
  EXPECT_EQ(progress.files_rewritten, kTables - 2);
  EXPECT_EQ(progress.files_remaining, 0u);
  stop = true;
  reader.join();
  EXPECT_GT(reads.load(), 0u);
  EXPECT_EQ(wrong.load(), 0u) << "of " << reads.load() << " reads during the migration";

  const auto tables = FilterOfEachTable(db.get());
  EXPECT_EQ(Count(tables, "bloomfilter"), 0u);
  EXPECT_EQ(Count(tables, "sstfilter.bloom"), 1u);  // readable: left alone
  ReadBack(db.get(), kTables + 1);
  for (uint64_t b = 0; b <= kTables; ++b) EXPECT_GT(UsefulIn(db.get(), b), kFiltered) << b;
}

TEST_F(PolicySwitchTest, MigrateAllKindsAndPacing) {
  for (uint64_t b = 0; b < kTables; ++b) WriteBatchWith(Ours("bloom", 10), b);
  auto db = Open(Ours("cuckoo", 12));
  MigrateOptions options;
  MigrateProgress progress;
  // Readable already: nothing to do unless asked for every other kind.
  ASSERT_TRUE(MigrateFilters(db.get(), db->DefaultColumnFamily(), options, {}, &progress).ok());
  EXPECT_EQ(progress.files_to_rewrite, 0u);
  options.rewrite_other_kinds = true;
  options.dry_run = true;
  ASSERT_TRUE(MigrateFilters(db.get(), db->DefaultColumnFamily(), options, {}, &progress).ok());
  ASSERT_EQ(progress.files_to_rewrite, kTables);
  // Paced to take a second by the DB's clock, whose sleeps this Env skips
  // (its clock jumps ahead by each one instead): the pacing is checked
  // exactly, whatever the machine's speed.
  options.dry_run = false;
  options.max_bytes_per_second = progress.bytes_to_rewrite;
  const uint64_t start_us = env_.NowMicros();
  const uint64_t skipped_before = env_.skipped_us();
  ASSERT_TRUE(MigrateFilters(db.get(), db->DefaultColumnFamily(), options, {}, &progress).ok());
  EXPECT_EQ(progress.files_remaining, 0u);
  EXPECT_GE(env_.NowMicros() - start_us, 1000000u);  // all bytes due at exactly one second
  EXPECT_GT(env_.skipped_us() - skipped_before, 0u);  // and it slept to get there
  for (const auto& t : FilterOfEachTable(db.get())) EXPECT_EQ(t.second, "sstfilter.cuckoo");
}

TEST(FilterFamilyTest, FromTablePropertiesAndPolicies) {
  EXPECT_EQ(FilterFamilyOfTable(""), FilterFamily::kNone);
  EXPECT_EQ(FilterFamilyOfTable("bloomfilter"), FilterFamily::kBuiltin);
  EXPECT_EQ(FilterFamilyOfTable("ribbonfilter"), FilterFamily::kBuiltin);
  EXPECT_EQ(FilterFamilyOfTable("rocksdb.BuiltinBloomFilter"), FilterFamily::kBuiltin);
  EXPECT_EQ(FilterFamilyOfTable("sstfilter.cuckoo"), FilterFamily::kSstfilter);
  EXPECT_EQ(FilterFamilyOfTable("sstfilter.cuckoo+builtin"), FilterFamily::kBuiltin);
  EXPECT_EQ(FilterFamilyOfTable("mycompany.filter"), FilterFamily::kOther);
  EXPECT_EQ(FilterFamilyOfPolicy(nullptr), FilterFamily::kNone);
  EXPECT_EQ(FilterFamilyOfPolicy(Builtin().get()), FilterFamily::kBuiltin);
  EXPECT_EQ(FilterFamilyOfPolicy(Ribbon().get()), FilterFamily::kBuiltin);
  EXPECT_EQ(FilterFamilyOfPolicy(Ours("cuckoo", 12).get()), FilterFamily::kSstfilter);
  const auto builtin_family = Ours("cuckoo", 12, Compat::kBuiltin);
  EXPECT_EQ(FilterFamilyOfPolicy(builtin_family.get()), FilterFamily::kBuiltin);
  // What RocksDB writes into the table properties names the family.
  EXPECT_EQ(FilterFamilyOfTable(builtin_family->Name()), FilterFamily::kBuiltin);
  EXPECT_EQ(builtin_family->GetId(), "sstfilter.cuckoo");
}

#ifdef SSTFILTER_MIGRATE_TOOL
// Runs `command`; returns its stdout (empty if it failed).
std::string RunCommand(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return out;
  char buf[512];
  while (fgets(buf, sizeof(buf), p) != nullptr) out += buf;
  return pclose(p) == 0 ? out : "";
}

TEST_F(PolicySwitchTest, MigrateToolOnADbSwitchedFromTheBuiltinFilter) {
  for (uint64_t b = 0; b < kTables; ++b) WriteBatchWith(Builtin(), b);
  Open(Ours("cuckoo", 12)).reset();  // the DB's latest OPTIONS now name sstfilter
  const std::string tool = std::string(SSTFILTER_MIGRATE_TOOL) + " " + dir_.path();
  const std::string dry = RunCommand(tool + " --dry_run");
  EXPECT_NE(dry.find("migrating to sstfilter.cuckoo"), std::string::npos) << dry;
  EXPECT_NE(dry.find("dry run: 4 SSTs"), std::string::npos) << dry;
  const std::string first = RunCommand(tool + " --max_files=1");
  EXPECT_NE(first.find("1/4 "), std::string::npos) << first;
  EXPECT_NE(first.find("; 3 still need one"), std::string::npos) << first;
  const std::string rest = RunCommand(tool);
  EXPECT_NE(rest.find("3 rewritten; 0 still need one"), std::string::npos) << rest;
  auto db = Open(Ours("cuckoo", 12));
  for (const auto& t : FilterOfEachTable(db.get())) EXPECT_EQ(t.second, "sstfilter.cuckoo");
  ReadBack(db.get(), kTables);
  EXPECT_GT(UsefulIn(db.get(), 0), kFiltered);
}
#endif

#ifdef SSTFILTER_LDB
// Runs stock ldb on the DB, with or without the plugin preloaded, and
// returns how many keys `scan` printed (-1 if it failed).
long LdbScanCount(const std::string& dir, bool preload) {
  const std::string cmd = std::string(preload ? "LD_PRELOAD=" SSTFILTER_SO " " : "") +
                          SSTFILTER_LDB " --db=" + dir + " scan 2>/dev/null | wc -l";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return -1;
  long n = -1;
  if (fscanf(p, "%ld", &n) != 1) n = -1;
  return pclose(p) == 0 ? n : -1;
}

TEST_F(PolicySwitchTest, PluginNotLoadedReadsEverythingWithoutFilters) {
  WriteBatchWith(NewCuckooFilterPolicy(12), 0);
  WriteBatchWith(NewBloomFilterPolicy(10), 1);
  // The DB's OPTIONS file names sstfilter policies. Stock ldb without the
  // plugin loads them as "no filter" and still reads every key.
  EXPECT_EQ(LdbScanCount(dir_.path(), /*preload=*/false), static_cast<long>(2 * kBatch));
  EXPECT_EQ(LdbScanCount(dir_.path(), /*preload=*/true), static_cast<long>(2 * kBatch));
  // Same thing in-process: options naming an unregistered id load as null.
  rocksdb::ConfigOptions config;
  rocksdb::ColumnFamilyOptions cf;
  ASSERT_TRUE(rocksdb::GetColumnFamilyOptionsFromString(
                  config, {}, "block_based_table_factory={filter_policy=unloaded.cuckoo:12}", &cf)
                  .ok());
  EXPECT_TRUE(CheckFilterPolicyInEffect(cf).IsInvalidArgument());
  auto db = Open(nullptr);
  ReadBack(db.get(), 2);
  EXPECT_EQ(UsefulIn(db.get(), 0) + UsefulIn(db.get(), 1), 0u)
      << "no filter is read without a policy";
}
#endif

}  // namespace
}  // namespace sstfilter
