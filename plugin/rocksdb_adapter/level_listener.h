// The tree, as RocksDB knows it, for allocation=monkey: an EventListener
// that reads every column family's files per level from the DB's metadata
// at the start and end of every flush and compaction RocksDB notifies
// (DB::CompactFiles notifies none), and a board where the policy's builders
// find them (allocation/tree_allocation.h), with each level's target size
// from the DB's level sizing options and its files' key ranges.
//
// Builders know their DB only by its info log (FilterBuildingContext), so
// trees are posted under (info log, column family name): DBs that share
// one Logger object and have column families of the same name share a
// tree, the one limit of this scheme. A listener forgets its trees when it
// is destroyed, with the DB's options.

#pragma once

#include <rocksdb/listener.h>

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "allocation/tree_allocation.h"

namespace sstfilter {

class LevelListener : public rocksdb::EventListener {
 public:
  static const char* kClassName() { return "sstfilter.LevelListener"; }
  const char* Name() const override { return kClassName(); }
  ~LevelListener() override;

  void OnFlushBegin(rocksdb::DB* db, const rocksdb::FlushJobInfo& info) override;
  void OnFlushCompleted(rocksdb::DB* db, const rocksdb::FlushJobInfo& info) override;
  void OnCompactionBegin(rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) override;
  void OnCompactionCompleted(rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) override;

 private:
  // Reads the tree of every column family of `db` and posts it.
  void Post(rocksdb::DB* db);

  std::mutex mu_;
  std::set<std::pair<const void*, std::string>> posted_;  // to forget
};

// The tree last posted for the column family `cf_name` of the DB whose
// info log is `info_log`; null if no listener has posted one.
std::shared_ptr<const TreeShape> FindPostedTree(const void* info_log, const std::string& cf_name);

}  // namespace sstfilter
