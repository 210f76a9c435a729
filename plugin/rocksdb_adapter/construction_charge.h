// Charges a filter build's memory to RocksDB's block cache, as the
// built-in filters do when the table options charge
// CacheEntryRole::kFilterConstruction
// (BlockBasedTableOptions::cache_usage_options, RocksDB 7.3 on).
//
// A charge is a set of cache entries with no value and the charge as their
// size, pinned until released, so the cache evicts other blocks to make
// room for them. It goes through the public Cache API only (Insert with a
// handle, Release), so an out-of-tree build charges as an in-tree one.
//
// What BitsBuilderAdapter charges, and when (docs/design/rocksdb_integration.md):
// - the key hashes it holds, as their array grows; a refusal is ignored,
//   since the hashes are held either way (the built-in Bloom filter does
//   the same);
// - at Finish, before building, the planned kind's working memory and the
//   finished filter (PlanWorkingBytes, planner.h). If the cache refuses
//   (strict_capacity_limit and no room), the adapter builds a Bloom filter
//   of the same bits/key instead, which needs no working memory: a whole,
//   correct filter, never a partial one (the built-in Ribbon filter falls
//   back to Bloom alike).
// Everything is released when Finish returns.

#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <rocksdb/cache.h>
#include <rocksdb/table.h>
#include <rocksdb/version.h>
#if ROCKSDB_MAJOR >= 8
#include <rocksdb/advanced_cache.h>  // the Cache class itself, from 8.0
#endif

namespace sstfilter {

class ConstructionCharge {
 public:
  // A charge against `cache` (not null).
  explicit ConstructionCharge(std::shared_ptr<rocksdb::Cache> cache);
  ~ConstructionCharge();
  ConstructionCharge(const ConstructionCharge&) = delete;
  ConstructionCharge& operator=(const ConstructionCharge&) = delete;

  // Null unless `table_options` charges kFilterConstruction (set to
  // kEnabled for that role, or by default for every role) and has a block
  // cache. Always null before RocksDB 7.3, which has no such option.
  static std::unique_ptr<ConstructionCharge> For(
      const rocksdb::BlockBasedTableOptions& table_options);

  // Charges `bytes` more. False, with nothing more charged, if the cache
  // cannot make room (only under strict_capacity_limit).
  bool Add(size_t bytes);
  // Releases every charge Add made.
  void ReleaseAll();
  size_t charged() const { return charged_; }

 private:
  std::shared_ptr<rocksdb::Cache> cache_;
  std::vector<rocksdb::Cache::Handle*> handles_;
  size_t charged_ = 0;
};

}  // namespace sstfilter
