#include "charge_probe.h"

#include <memory>
#include <string>

#include <rocksdb/cache.h>
#include <rocksdb/table.h>

#include "rocksdb_adapter/construction_charge.h"  // the Cache class on every release
#include "rocksdb_adapter/rocksdb_internal.h"

namespace build_memory {

namespace {

// The filter's bytes, built through `table` as RocksDB's table builder
// drives a policy.
std::string BuildWith(const rocksdb::FilterPolicy& policy, const filter_bench::KeyBatch& keys,
                      const rocksdb::BlockBasedTableOptions& table) {
  std::unique_ptr<rocksdb::FilterBitsBuilder> builder(
      policy.GetBuilderWithContext(rocksdb::FilterBuildingContext(table)));
  for (size_t i = 0; i < keys.size(); ++i) builder->AddKey(keys.key(i));
  std::unique_ptr<const char[]> buf;
  const rocksdb::Slice filter = builder->Finish(&buf);
  return filter.ToString();
}

bool KeepsItsBytes(const rocksdb::FilterPolicy& policy, const filter_bench::KeyBatch& keys,
                   const std::string& reference, size_t capacity) {
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(capacity, /*num_shard_bits=*/0,
                                           /*strict_capacity_limit=*/true);
  table.cache_usage_options.options_overrides.insert(
      {rocksdb::CacheEntryRole::kFilterConstruction,
       {rocksdb::CacheEntryRoleOptions::Decision::kEnabled}});
  return BuildWith(policy, keys, table) == reference;
}

}  // namespace

size_t SmallestStrictCache(const rocksdb::FilterPolicy& policy, const filter_bench::KeyBatch& keys,
                           size_t step, size_t ceiling) {
  const std::string reference = BuildWith(policy, keys, rocksdb::BlockBasedTableOptions());
  if (KeepsItsBytes(policy, keys, reference, 0)) return 0;
  if (!KeepsItsBytes(policy, keys, reference, ceiling)) return ceiling;
  size_t lo = 0, hi = ceiling;  // lo refused, hi kept
  while (hi - lo > step) {
    const size_t mid = lo + (hi - lo) / 2;
    (KeepsItsBytes(policy, keys, reference, mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace build_memory
