// Shared pieces of the GuardedDB tests: options, and the check every test
// ends with: no key the DB holds is ruled out by the guard.

#pragma once

#include <sstfilter/guarded_db.h>
#include <sstfilter/sstfilter.h>

#include <gtest/gtest.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/table.h>

#include <memory>
#include <string>
#include <vector>

#include "util/db_test_util.h"

namespace sstfilter {
namespace test {

// Appends with a comma; enough to exercise Merge.
class AppendOperator : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice&, const rocksdb::Slice* existing, const rocksdb::Slice& value,
             std::string* out, rocksdb::Logger*) const override {
    out->assign(existing ? existing->ToString() + "," : std::string());
    out->append(value.data(), value.size());
    return true;
  }
  const char* Name() const override { return "AppendOperator"; }
};

inline rocksdb::Options GuardTestOptions() {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.create_missing_column_families = true;
  o.merge_operator = std::make_shared<AppendOperator>();
  o.write_buffer_size = 256 << 10;  // several flushes, real SSTs
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy = NewCuckooFilterPolicy(12);
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  return o;
}

inline GuardOptions QuietGuard() {
  GuardOptions g;
  g.report_progress = false;
  return g;
}

// For tests that count what the filter rules out: every Get probes, none
// skips its probe (adaptive probes: guarded_db_adaptive_test.cc).
inline GuardOptions EveryGetProbes(GuardOptions g = QuietGuard()) {
  g.adaptive_probes = false;
  return g;
}

// RepresizeGuard amid writers, tried again when it gave up on writes in
// flight that did not publish within its wall-clock bound: a loaded
// machine can deschedule a writer that long, and the product then abandons
// the re-presize safely, which a test must not count as a failure.
inline rocksdb::Status RepresizeAmidWriters(GuardedDB* db, rocksdb::ColumnFamilyHandle* cf) {
  for (;;) {
    const rocksdb::Status s = db->RepresizeGuard(cf);
    if (!s.IsIncomplete() || s.ToString().find("writes in flight") == std::string::npos) return s;
  }
}

// Every key of `cf` in the DB (read around the guard) must be found through
// it by Get, MultiGet and KeyMayExist. Returns the number of keys.
inline size_t ExpectAllKeysFound(GuardedDB* db, rocksdb::ColumnFamilyHandle* cf = nullptr) {
  if (cf == nullptr) cf = db->DefaultColumnFamily();
  std::unique_ptr<rocksdb::Iterator> it(db->GetBaseDB()->NewIterator(rocksdb::ReadOptions(), cf));
  std::vector<std::string> keys;
  for (it->SeekToFirst(); it->Valid(); it->Next()) keys.push_back(it->key().ToString());
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  size_t missed = 0;
  for (const std::string& k : keys) {
    std::string v;
    missed += db->Get(rocksdb::ReadOptions(), cf, k, &v).ok() ? 0 : 1;
    missed += db->KeyMayExist(rocksdb::ReadOptions(), cf, k, &v) ? 0 : 1;
  }
  std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
  std::vector<rocksdb::PinnableSlice> values(keys.size());
  std::vector<rocksdb::Status> statuses(keys.size());
  if (!keys.empty()) {
    db->MultiGet(rocksdb::ReadOptions(), cf, keys.size(), slices.data(), values.data(),
                 statuses.data());
  }
  for (const auto& s : statuses) missed += s.ok() ? 0 : 1;
  EXPECT_EQ(missed, 0u) << "keys the DB holds but the guard ruled out";
  return keys.size();
}

}  // namespace test
}  // namespace sstfilter
