// A TransactionDB under the guard (GuardedDB::Open's BaseOpener form).
//
// WRITE_PREPARED and WRITE_UNPREPARED put a transaction's keys into the
// memtable before it commits: the hooks see them then, but a read through
// the TransactionDB does not until the commit. Two consequences:
// - Recovery replays such keys into the memtable before the hooks are
//   attached, so a rebuild at Open also scans the DB below the
//   TransactionDB, which shows every entry (guard_restart.cc).
// - A re-presize's snapshot scan would miss a key prepared before it and
//   committed after: none runs while such a base is open.
// WRITE_COMMITTED needs neither, but the policy cannot be read from a
// TransactionDB, so every TransactionDB base is treated alike.

#pragma once

#include <rocksdb/db.h>

namespace sstfilter {

bool IsTransactionDB(rocksdb::DB* base);

}  // namespace sstfilter
