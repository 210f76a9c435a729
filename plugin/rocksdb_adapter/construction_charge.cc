#include "rocksdb_adapter/construction_charge.h"

#include <cstring>

#include "format/coding.h"

namespace sstfilter {

namespace {

#if ROCKSDB_MAJOR >= 8
// An entry with no object: nothing to delete, and counted under the role
// in the cache's statistics.
const rocksdb::Cache::CacheItemHelper kChargeHelper{
    rocksdb::CacheEntryRole::kFilterConstruction};
#else
void NoDelete(const rocksdb::Slice& /*key*/, void* /*value*/) {}
#endif

#if ROCKSDB_MAJOR > 7 || (ROCKSDB_MAJOR == 7 && ROCKSDB_MINOR >= 3)
bool ChargesConstruction(const rocksdb::BlockBasedTableOptions& t) {
  using Decision = rocksdb::CacheEntryRoleOptions::Decision;
  const auto& usage = t.cache_usage_options;
  const auto role = usage.options_overrides.find(rocksdb::CacheEntryRole::kFilterConstruction);
  const Decision d =
      role != usage.options_overrides.end() ? role->second.charged : usage.options.charged;
  return d == Decision::kEnabled;  // kFallback: RocksDB's default for the role, not charged
}
#else
bool ChargesConstruction(const rocksdb::BlockBasedTableOptions&) { return false; }
#endif

}  // namespace

ConstructionCharge::ConstructionCharge(std::shared_ptr<rocksdb::Cache> cache)
    : cache_(std::move(cache)) {}

ConstructionCharge::~ConstructionCharge() { ReleaseAll(); }

std::unique_ptr<ConstructionCharge> ConstructionCharge::For(
    const rocksdb::BlockBasedTableOptions& table_options) {
  if (table_options.no_block_cache || !table_options.block_cache ||
      !ChargesConstruction(table_options)) {
    return nullptr;
  }
  return std::make_unique<ConstructionCharge>(table_options.block_cache);
}

bool ConstructionCharge::Add(size_t bytes) {
  if (bytes == 0) return true;
  // 16 bytes, as every cache implementation accepts: a tag and an id
  // unique within this cache.
  char key[16];
  std::memcpy(key, "sstfchrg", 8);
  EncodeFixed64(key + 8, cache_->NewId());
  rocksdb::Cache::Handle* handle = nullptr;
#if ROCKSDB_MAJOR >= 8
  const rocksdb::Status s = cache_->Insert(rocksdb::Slice(key, sizeof(key)), nullptr,
                                           &kChargeHelper, bytes, &handle);
#else
  const rocksdb::Status s =
      cache_->Insert(rocksdb::Slice(key, sizeof(key)), nullptr, bytes, &NoDelete, &handle);
#endif
  if (!s.ok() || handle == nullptr) return false;
  handles_.push_back(handle);
  charged_ += bytes;
  return true;
}

void ConstructionCharge::ReleaseAll() {
  for (rocksdb::Cache::Handle* h : handles_) cache_->Release(h, /*erase_if_last_ref=*/true);
  handles_.clear();
  charged_ = 0;
}

}  // namespace sstfilter
