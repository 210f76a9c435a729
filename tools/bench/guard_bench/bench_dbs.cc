#include "bench_dbs.h"

#include <algorithm>

#include <rocksdb/utilities/transaction.h>
#include <rocksdb/write_batch.h>

#include "rocksdb_adapter/db_open.h"

namespace guard_bench {

BenchDB::BenchDB(const rocksdb::Options& options, const sstfilter::GuardOptions& guard,
                 const std::string& dir, bool guarded, bool transactions) {
  rocksdb::DBOptions db_options(options);
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(options)}};
  std::vector<size_t> compaction_cfs;
  if (transactions) rocksdb::TransactionDB::PrepareWrap(&db_options, &cfs, &compaction_cfs);
  if (!guarded) {
    if (transactions) {
      rocksdb::TransactionDB* db = nullptr;
      status_ = rocksdb::TransactionDB::Open(options, rocksdb::TransactionDBOptions(), dir, &db);
      owner_.reset(db);
      txn_ = db;
    } else {
      status_ = sstfilter::OpenDB(options, dir, &owner_);
    }
    top_ = owner_.get();
    return;
  }
  std::unique_ptr<sstfilter::GuardedDB> gdb;
  status_ = sstfilter::GuardedDB::Open(db_options, guard, dir, cfs, &handles_, &gdb);
  if (!status_.ok()) return;
  guard_ = gdb.get();
  if (!transactions) {
    owner_ = std::move(gdb);
    top_ = owner_.get();
    return;
  }
  rocksdb::TransactionDB* db = nullptr;
  status_ = rocksdb::TransactionDB::WrapStackableDB(gdb.release(), rocksdb::TransactionDBOptions(),
                                                    compaction_cfs, handles_, &db);
  owner_.reset(db);
  txn_ = db;
  top_ = db;
}

void BenchDB::Fill(uint64_t n, const std::function<std::string(uint64_t)>& key,
                   const std::function<rocksdb::Slice(uint64_t)>& value) {
  for (uint64_t i = 0; i < n; i += 1000) {
    rocksdb::WriteBatch b;
    for (uint64_t j = i; j < std::min(n, i + 1000); ++j) b.Put(key(j), value(j));
    top_->Write(rocksdb::WriteOptions(), &b);
  }
}

rocksdb::Status BenchDB::WriteOne(const std::string& key, const rocksdb::Slice& value,
                                  bool put) {
  const rocksdb::WriteOptions wo;
  if (txn_ == nullptr) return put ? top_->Put(wo, key, value) : top_->Delete(wo, key);
  std::unique_ptr<rocksdb::Transaction> txn(txn_->BeginTransaction(wo));
  rocksdb::Status s = put ? txn->Put(key, value) : txn->Delete(key);
  return s.ok() ? txn->Commit() : s;
}

void BenchDB::Close() {
  if (owner_ == nullptr) return;
  for (rocksdb::ColumnFamilyHandle* h : handles_) owner_->DestroyColumnFamilyHandle(h);
  handles_.clear();
  owner_->Close();
  owner_.reset();
}

BenchDB::~BenchDB() { Close(); }

}  // namespace guard_bench
