// rocksdb::DB::Open in whichever form the RocksDB being built against has:
// `DB**` up to 11.0, which removed it; `std::unique_ptr<DB>*` from 9.11.
// The guard, the migration tool and the tests open DBs through this.

#pragma once

#include <memory>
#include <string>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/version.h>

#define SSTFILTER_HAS_UNIQUE_PTR_OPEN \
  (ROCKSDB_MAJOR > 9 || (ROCKSDB_MAJOR == 9 && ROCKSDB_MINOR >= 11))

namespace sstfilter {

inline rocksdb::Status OpenDB(const rocksdb::Options& options, const std::string& path,
                              std::unique_ptr<rocksdb::DB>* db) {
#if SSTFILTER_HAS_UNIQUE_PTR_OPEN
  return rocksdb::DB::Open(options, path, db);
#else
  rocksdb::DB* raw = nullptr;
  const rocksdb::Status s = rocksdb::DB::Open(options, path, &raw);
  db->reset(raw);
  return s;
#endif
}

// With column families: the caller destroys *handles before the DB.
inline rocksdb::Status OpenDB(const rocksdb::DBOptions& options, const std::string& path,
                              const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
                              std::vector<rocksdb::ColumnFamilyHandle*>* handles,
                              std::unique_ptr<rocksdb::DB>* db) {
#if SSTFILTER_HAS_UNIQUE_PTR_OPEN
  return rocksdb::DB::Open(options, path, families, handles, db);
#else
  rocksdb::DB* raw = nullptr;
  const rocksdb::Status s = rocksdb::DB::Open(options, path, families, handles, &raw);
  db->reset(raw);
  return s;
#endif
}

}  // namespace sstfilter
