#include "bench_dbs.h"

#include "rocksdb/db_open.h"

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

void BenchDB::Close() {
  if (owner_ == nullptr) return;
  for (rocksdb::ColumnFamilyHandle* h : handles_) owner_->DestroyColumnFamilyHandle(h);
  handles_.clear();
  owner_->Close();
  owner_.reset();
}

BenchDB::~BenchDB() { Close(); }

}  // namespace guard_bench
