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

#include <rocksdb/convenience.h>
#include <sstfilter/migrate.h>
#include <sstfilter/sstfilter.h>

#include <cstdio>
#include <string>

#include "policy_switch_fixture.h"

namespace sstfilter {
namespace {

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
