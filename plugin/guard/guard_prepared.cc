#include "guard/guard_prepared.h"

#include <rocksdb/utilities/transaction.h>
#include <rocksdb/utilities/transaction_db.h>
#include <rocksdb/utilities/write_batch_with_index.h>
#include <rocksdb/write_batch.h>

#include "rocksdb/slice_hash.h"

namespace sstfilter {
namespace {

// Adds the key of every record that can make a key visible (any but the
// deletions and markers) to its family's guard.
class PreparedKeys : public rocksdb::WriteBatch::Handler {
 public:
  explicit PreparedKeys(GuardedDB::Impl* impl) : impl_(impl) {}
  rocksdb::Status PutCF(uint32_t id, const rocksdb::Slice& key, const rocksdb::Slice&) override {
    return Add(id, key);
  }
  rocksdb::Status PutEntityCF(uint32_t id, const rocksdb::Slice& key,
                              const rocksdb::Slice&) override {
    return Add(id, key);
  }
  rocksdb::Status MergeCF(uint32_t id, const rocksdb::Slice& key,
                          const rocksdb::Slice&) override {
    return Add(id, key);
  }
  rocksdb::Status PutBlobIndexCF(uint32_t id, const rocksdb::Slice& key,
                                 const rocksdb::Slice&) override {
    return Add(id, key);
  }
#if ROCKSDB_MAJOR >= 9
  rocksdb::Status TimedPutCF(uint32_t id, const rocksdb::Slice& key, const rocksdb::Slice&,
                             uint64_t) override {
    return Add(id, key);
  }
#endif
  rocksdb::Status DeleteCF(uint32_t, const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }
  rocksdb::Status SingleDeleteCF(uint32_t, const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }
  rocksdb::Status DeleteRangeCF(uint32_t, const rocksdb::Slice&, const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }
  void LogData(const rocksdb::Slice&) override {}

 private:
  rocksdb::Status Add(uint32_t id, const rocksdb::Slice& key) {
    if (GuardFamily* g = impl_->Lookup(id)) g->Add(KeyHash(key), /*seq=*/0);
    return rocksdb::Status::OK();
  }
  GuardedDB::Impl* impl_;
};

}  // namespace

rocksdb::Status GuardPreparedTransactions(rocksdb::DB* base, GuardedDB::Impl* impl) {
  auto* txn_db = dynamic_cast<rocksdb::TransactionDB*>(base);
  if (txn_db == nullptr) return rocksdb::Status::OK();
  impl->BarRepresize(
      "a TransactionDB under the guard (a prepared transaction's keys are in the memtable "
      "before a scan can see them)");
  std::vector<rocksdb::Transaction*> prepared;
  txn_db->GetAllPreparedTransactions(&prepared);
  PreparedKeys keys(impl);
  for (rocksdb::Transaction* txn : prepared) {
    rocksdb::Status s = txn->GetWriteBatch()->GetWriteBatch()->Iterate(&keys);
    if (!s.ok()) return s;
  }
  return rocksdb::Status::OK();
}

}  // namespace sstfilter
