#include "guard/guard_txn_base.h"

#include <rocksdb/utilities/transaction_db.h>

namespace sstfilter {

bool IsTransactionDB(rocksdb::DB* base) {
  return dynamic_cast<rocksdb::TransactionDB*>(base) != nullptr;
}

}  // namespace sstfilter
