// Restart of a GuardedDB: the guard saved on Close, loaded on Open when it
// still describes the DB, rebuilt from a key scan otherwise.

#pragma once

#include <vector>

#include <rocksdb/db.h>

#include "guard/guard_impl.h"

namespace sstfilter {

// Gives every guarded family among `handles` its guard, loaded from
// impl->guard_file if that file matches the DB (same identity, sequence
// number, and every SST live since written by this session), else rebuilt
// by scanning the family's keys. Consumes the file (deletes it), so that a
// crash later can never reuse it. Fills impl->open_stats and
// impl->open_sst_files. Non-OK only for a failed scan, an unguardable
// family (user-defined timestamps) or bad options.
rocksdb::Status LoadOrRebuildGuards(rocksdb::DB* db, guard_internal::Impl* impl,
                                    const std::vector<rocksdb::ColumnFamilyHandle*>& handles);

// A fresh guard for a family being scanned (Open) or created empty.
rocksdb::Status NewGuardFamily(rocksdb::DB* db, guard_internal::Impl* impl,
                               rocksdb::ColumnFamilyHandle* handle, bool scan,
                               std::unique_ptr<GuardFamily>* out);

// Writes every enabled, undropped guard with what it covers, atomically
// (temporary file, then rename); writes nothing after an ingestion in this
// session (guard_internal::Impl::unfollowed). Leaves out of the saved SST list
// every SST this session did
// not write became live in a guarded family since Open (an ingestion).
// Precondition: no concurrent writes.
rocksdb::Status SaveGuards(rocksdb::DB* db, guard_internal::Impl* impl);

}  // namespace sstfilter
