// GuardedDB with transactions, opened as a user would, for the
// transaction tests and the crash test's child.

#pragma once

#include <rocksdb/utilities/optimistic_transaction_db.h>
#include <rocksdb/utilities/transaction.h>
#include <rocksdb/utilities/transaction_db.h>

#include <memory>
#include <string>
#include <vector>

#include "guard_test_util.h"

namespace sstfilter {
namespace test {

enum class Layer { kWrapCommitted, kOpenCommitted, kOpenPrepared, kOpenUnprepared, kOptimistic };

inline const char* LayerName(Layer l) {
  switch (l) {
    case Layer::kWrapCommitted: return "WrapStackableDB";
    case Layer::kOpenCommitted: return "WriteCommitted";
    case Layer::kOpenPrepared: return "WritePrepared";
    case Layer::kOpenUnprepared: return "WriteUnprepared";
    case Layer::kOptimistic: return "Optimistic";
  }
  return "?";
}

// A guard with transactions over it (or under it), opened as a user would.
class TxnStack {
 public:
  TxnStack(Layer layer, const std::string& path, const GuardOptions& g) : layer_(layer) {
    rocksdb::Options options = GuardTestOptions();
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs = {
        {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(options)}};
    rocksdb::DBOptions db_options(options);
    rocksdb::TransactionDBOptions txn_options;
    std::unique_ptr<GuardedDB> guarded;
    if (layer == Layer::kWrapCommitted) {
      std::vector<size_t> compaction_cfs;
      rocksdb::TransactionDB::PrepareWrap(&db_options, &cfs, &compaction_cfs);
      status_ = GuardedDB::Open(db_options, g, path, cfs, &handles_, &guarded);
      if (!status_.ok()) return;
      guard_ = guarded.get();
      rocksdb::TransactionDB* txn_db = nullptr;
      status_ = rocksdb::TransactionDB::WrapStackableDB(guarded.release(), txn_options,
                                                        compaction_cfs, handles_, &txn_db);
      pessimistic_.reset(txn_db);
      top_ = txn_db;
      return;
    }
    txn_options.write_policy = layer == Layer::kOpenPrepared     ? rocksdb::WRITE_PREPARED
                               : layer == Layer::kOpenUnprepared ? rocksdb::WRITE_UNPREPARED
                                                                 : rocksdb::WRITE_COMMITTED;
    status_ = GuardedDB::Open(
        db_options, g, path, cfs, &handles_, &owned_guard_,
        [&](const rocksdb::DBOptions& o, const std::string& p,
            const std::vector<rocksdb::ColumnFamilyDescriptor>& f,
            std::vector<rocksdb::ColumnFamilyHandle*>* h, rocksdb::DB** out) {
          rocksdb::Status s;
          if (layer == Layer::kOptimistic) {
            rocksdb::OptimisticTransactionDB* db = nullptr;
            s = rocksdb::OptimisticTransactionDB::Open(o, p, f, h, &db);
            *out = db;
          } else {
            rocksdb::TransactionDB* db = nullptr;
            s = rocksdb::TransactionDB::Open(o, txn_options, p, f, h, &db);
            *out = db;
          }
          return s;
        });
    if (!status_.ok()) return;
    guard_ = owned_guard_.get();
    top_ = guard_->GetBaseDB();
  }
  ~TxnStack() {
    for (auto* h : handles_) top_->DestroyColumnFamilyHandle(h);
    pessimistic_.reset();
    owned_guard_.reset();
  }

  const rocksdb::Status& status() const { return status_; }
  GuardedDB* guard() const { return guard_; }
  // The DB transactions begin on (it reads around the guard unless it is
  // stacked on it).
  rocksdb::DB* top() const { return top_; }
  rocksdb::DB* root() const { return guard_->GetRootDB(); }
  rocksdb::ColumnFamilyHandle* cf() const { return handles_[0]; }
  bool optimistic() const { return layer_ == Layer::kOptimistic; }
  bool represizes() const { return layer_ == Layer::kWrapCommitted; }
  bool plain_root_writes() const {
    return layer_ != Layer::kOpenPrepared && layer_ != Layer::kOpenUnprepared;
  }

  // A transaction; named (for Prepare) unless optimistic.
  rocksdb::Transaction* Begin(const std::string& name) {
    rocksdb::WriteOptions wo;
    if (optimistic()) {
      return static_cast<rocksdb::OptimisticTransactionDB*>(top_)->BeginTransaction(wo);
    }
    rocksdb::Transaction* txn = static_cast<rocksdb::TransactionDB*>(top_)->BeginTransaction(wo);
    EXPECT_TRUE(txn->SetName(name).ok());
    return txn;
  }

 private:
  Layer layer_;
  rocksdb::Status status_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  std::unique_ptr<GuardedDB> owned_guard_;            // the BaseOpener forms
  std::unique_ptr<rocksdb::TransactionDB> pessimistic_;  // WrapStackableDB owns the guard
  GuardedDB* guard_ = nullptr;
  rocksdb::DB* top_ = nullptr;
};

}  // namespace test
}  // namespace sstfilter
