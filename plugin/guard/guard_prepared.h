// A TransactionDB under the guard (GuardedDB::Open's BaseOpener form): the
// keys its prepared transactions will make visible at commit.
//
// WRITE_PREPARED and WRITE_UNPREPARED put a transaction's keys into the
// memtable before it commits: the hooks see them then, but a scan of the DB
// does not until the commit. So Open adds the keys of the transactions
// recovery left prepared (its scan cannot see them, and their memtable
// inserts ran before the hooks were attached), and no re-presize runs
// while such a base is open (its snapshot scan would miss keys prepared
// before it and committed after).

#pragma once

#include <rocksdb/db.h>

#include "guard/guard_impl.h"

namespace sstfilter {

// If `base` is a TransactionDB: bars re-presizes and adds every prepared
// transaction's written keys to their families' guards. Call after the
// guards are published, before Open returns. A no-op for any other DB.
rocksdb::Status GuardPreparedTransactions(rocksdb::DB* base, GuardedDB::Impl* impl);

}  // namespace sstfilter
