// guard_bench's DBs: one opened as a user would, plain or guarded, and with
// transactions a pessimistic TransactionDB over it (WrapStackableDB over the
// guard, TransactionDB::Open for the plain one).

#pragma once

#include <sstfilter/guarded_db.h>

#include <rocksdb/options.h>
#include <rocksdb/utilities/transaction_db.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace guard_bench {

class BenchDB {
 public:
  // Opens `dir`; check status(). Without `guarded`, no guard at all: no
  // memtable hook either.
  BenchDB(const rocksdb::Options& options, const sstfilter::GuardOptions& guard,
          const std::string& dir, bool guarded, bool transactions);
  ~BenchDB();
  BenchDB(const BenchDB&) = delete;
  BenchDB& operator=(const BenchDB&) = delete;

  const rocksdb::Status& status() const { return status_; }
  // What the workloads read and write: the TransactionDB with transactions,
  // else the GuardedDB or the plain DB.
  rocksdb::DB* top() const { return top_; }
  // Null without `guarded`.
  sstfilter::GuardedDB* guard() const { return guard_; }
  rocksdb::TransactionDB* txn() const { return txn_; }
  // Puts keys [0, n), in batches of 1,000; key(i) and value(i) make them.
  void Fill(uint64_t n, const std::function<std::string(uint64_t)>& key,
            const std::function<rocksdb::Slice(uint64_t)>& value);
  // One Put (or, `put` false, Delete): with transactions, a one-key
  // transaction's commit.
  rocksdb::Status WriteOne(const std::string& key, const rocksdb::Slice& value, bool put);
  // Closes it (the guard is saved).
  void Close();

 private:
  rocksdb::Status status_;
  std::unique_ptr<rocksdb::DB> owner_;  // the top
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  rocksdb::DB* top_ = nullptr;
  sstfilter::GuardedDB* guard_ = nullptr;
  rocksdb::TransactionDB* txn_ = nullptr;
};

}  // namespace guard_bench
