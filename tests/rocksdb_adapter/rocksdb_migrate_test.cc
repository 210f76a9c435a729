// sstfilter::MigrateFilters and the sstfilter_migrate CLI on real DBs,
// built with the policy-switch tests' fixture (policy_switch_fixture.h):
// rewriting the SSTs whose filter the configured policy cannot read.

#include <sstfilter/migrate.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "policy_switch_fixture.h"

namespace sstfilter {
namespace {

using test::KeyAt;

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
  // At least one read, however slowly the reader was scheduled.
  while (reads.load() == 0) std::this_thread::yield();
  stop = true;
  reader.join();
  EXPECT_EQ(wrong.load(), 0u) << "of " << reads.load() << " reads during the migration";

  const auto tables = FilterOfEachTable(db.get());
  EXPECT_EQ(Count(tables, "bloomfilter"), 0u);
  EXPECT_EQ(Count(tables, "sstfilter.bloom"), 1u);  // readable: left alone
  ReadBack(db.get(), kTables + 1);
  for (uint64_t b = 0; b <= kTables; ++b) EXPECT_GT(UsefulIn(db.get(), b), kFiltered) << b;
}

// Into the bumped ribbon filter: every SST written with another kind is
// rewritten with it, every key still found, absent keys still filtered.
TEST_F(PolicySwitchTest, MigrateToTheBumpedRibbonFilter) {
  for (uint64_t b = 0; b < kTables; ++b) WriteBatchWith(Ours(b % 2 ? "fuse" : "cuckoo", 10), b);
  auto db = Open(Ours("burr", 10));
  MigrateOptions options;
  options.rewrite_other_kinds = true;
  MigrateProgress progress;
  ASSERT_TRUE(MigrateFilters(db.get(), db->DefaultColumnFamily(), options, {}, &progress).ok());
  EXPECT_EQ(progress.files_rewritten, kTables);
  for (const auto& t : FilterOfEachTable(db.get())) EXPECT_EQ(t.second, "sstfilter.burr");
  ReadBack(db.get(), kTables);
  for (uint64_t b = 0; b < kTables; ++b) EXPECT_GT(UsefulIn(db.get(), b), kFiltered) << b;
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
  // Paced to take at least 1000 seconds by the DB's clock, whose sleeps
  // this Env skips (its clock jumps ahead by each one instead): far more
  // than the rewrites take in real time on any machine, so the pacing must
  // sleep, and is checked exactly, whatever the machine's speed.
  options.dry_run = false;
  ASSERT_GE(progress.bytes_to_rewrite, 1000u);
  options.max_bytes_per_second = progress.bytes_to_rewrite / 1000;
  const uint64_t start_us = env_.NowMicros();
  const uint64_t skipped_before = env_.skipped_us();
  ASSERT_TRUE(MigrateFilters(db.get(), db->DefaultColumnFamily(), options, {}, &progress).ok());
  EXPECT_EQ(progress.files_remaining, 0u);
  EXPECT_GE(env_.NowMicros() - start_us, 1000u * 1000000u);  // the last byte's due time
  EXPECT_GT(env_.skipped_us() - skipped_before, 0u);  // and it slept to get there
  for (const auto& t : FilterOfEachTable(db.get())) EXPECT_EQ(t.second, "sstfilter.cuckoo");
}

// rewrite_all: every SST once, though the configured policy reads them
// all and wrote them all (here at another bits/key); then nothing more.
TEST_F(PolicySwitchTest, MigrateAllRewritesEverySstOnce) {
  for (uint64_t b = 0; b < kTables; ++b) WriteBatchWith(Ours("cuckoo", 10), b);
  auto db = Open(Ours("cuckoo", 16));
  auto filter_bytes = [&] {
    rocksdb::TablePropertiesCollection props;
    EXPECT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
    uint64_t bytes = 0;
    for (const auto& p : props) bytes += p.second->filter_size;
    return bytes;
  };
  const uint64_t before = filter_bytes();
  MigrateOptions options;
  MigrateProgress progress;
  options.rewrite_other_kinds = true;  // same name: still nothing
  ASSERT_TRUE(MigrateFilters(db.get(), db->DefaultColumnFamily(), options, {}, &progress).ok());
  EXPECT_EQ(progress.files_to_rewrite, 0u);
  options.rewrite_all = true;
  ASSERT_TRUE(MigrateFilters(db.get(), db->DefaultColumnFamily(), options, {}, &progress).ok());
  EXPECT_EQ(progress.files_to_rewrite, kTables);
  EXPECT_EQ(progress.files_rewritten, kTables);
  EXPECT_EQ(progress.files_remaining, 0u);
  EXPECT_EQ(FilterOfEachTable(db.get()).size(), kTables);  // each in place
  // 16 bits/key in place of 10, give or take the tables' rounding.
  EXPECT_GT(filter_bytes(), before * 14 / 10);
  ReadBack(db.get(), kTables);
  for (uint64_t b = 0; b < kTables; ++b) EXPECT_GT(UsefulIn(db.get(), b), kFiltered) << b;
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

}  // namespace
}  // namespace sstfilter
