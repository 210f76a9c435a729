// GuardedDB's state: the guarded column families (looked up without locks
// by readers), the striped per-key writer locks, the counters.

#pragma once

#include <sstfilter/guarded_db.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "format/hash.h"
#include "guard/guard_family.h"

namespace sstfilter {

// Writers of one key serialize on its stripe, so that "does the DB hold the
// key", the guard update and the DB write are one step for that key.
// Every writer first holds the gate: shared, then its stripes in increasing
// order (no deadlock); a write of more than kMaxStripes stripes (a large
// batch, an ingestion) holds the gate exclusively instead, which also keeps
// the number of mutexes one thread holds small.
class KeyLocks {
 public:
  static constexpr size_t kStripes = 1024;
  static constexpr size_t kMaxStripes = 32;
  std::shared_mutex gate;
  static size_t StripeOf(uint32_t cf_id, uint64_t hash) {
    return FastRange64(Mix64(hash ^ (uint64_t{cf_id} * 0x9e3779b97f4a7c15ULL)), kStripes);
  }
  std::mutex& stripe(size_t i) { return stripes_[i].mu; }

 private:
  struct alignas(64) Padded {
    std::mutex mu;
  };
  Padded stripes_[kStripes];
};

// Holds the stripes of one write (sorted, deduplicated), or, for more than
// kMaxStripes of them or with `all`, every key's lock through the gate.
class StripeGuard {
 public:
  StripeGuard(KeyLocks* locks, std::vector<size_t> stripes, bool all = false);
  ~StripeGuard();
  StripeGuard(const StripeGuard&) = delete;
  StripeGuard& operator=(const StripeGuard&) = delete;

 private:
  KeyLocks* locks_;
  std::vector<size_t> stripes_;
  bool exclusive_;
};

struct GuardedDB::Impl {
  Impl(GuardOptions guard, std::string db_path);
  ~Impl();

  // Column families by id. Readers load the current table without a lock;
  // a change publishes a new table and keeps the old one until the end
  // (families change rarely).
  struct Table {
    std::vector<GuardFamily*> guard;  // null: not guarded
    std::vector<bool> known;          // opened or created through us
  };
  const Table* table() const { return table_.load(std::memory_order_acquire); }
  // The family's guard, or null if unguarded. *known: whether it is ours.
  GuardFamily* Lookup(uint32_t id, bool* known = nullptr) const {
    const Table* t = table();
    const bool k = id < t->known.size() && t->known[id];
    if (known != nullptr) *known = k;
    return k ? t->guard[id] : nullptr;
  }
  void Publish(uint32_t id, std::unique_ptr<GuardFamily> guard);  // guard may be null
  std::vector<GuardFamily*> Families() const;  // every guard, dropped ones too

  bool Guards(const std::string& name) const;
  rocksdb::Status NewFilter(uint64_t capacity, std::unique_ptr<DynamicCuckooFilter>* out) const;

  void CountRuledOut(uint64_t n);
  uint64_t RuledOut() const;

  // Restart bookkeeping. Every write through GuardedDB that succeeded adds
  // the sequence numbers it consumed (one per WriteBatch record), so that
  // SeenSequence() is the DB's sequence number as far as the guard has seen
  // it. Close saves that, not the DB's latest: a write made around the
  // guard leaves the DB ahead of it, and the next Open rebuilds. A path that
  // counts too little only costs a rebuild; none may count too much.
  void set_open_sequence(uint64_t s) { open_sequence_ = s; }
  void CountSequences(uint64_t n) { consumed_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t SeenSequence() const {
    return open_sequence_ + consumed_.load(std::memory_order_relaxed);
  }

  const GuardOptions options;
  const std::string guard_file;
  KeyLocks locks;
  GuardStats open_stats;  // loaded/rebuilt, set once by Open
  // The live SST files when Open finished (sorted): Close leaves out of the
  // saved list every SST that became live since and that this session did
  // not write, so that the next Open sees it as new and rebuilds.
  std::vector<uint64_t> open_sst_files;

 private:
  uint64_t open_sequence_ = 0;
  std::atomic<uint64_t> consumed_{0};
  std::atomic<const Table*> table_;
  std::mutex admin_mu_;  // changes of the table
  std::vector<std::unique_ptr<const Table>> tables_;
  std::vector<std::unique_ptr<GuardFamily>> owned_;
  struct alignas(64) Counter {
    std::atomic<uint64_t> n{0};
  };
  static constexpr size_t kCounters = 8;
  Counter ruled_out_[kCounters];
};

// For the write paths (guarded_db_write.cc, guarded_db_ingest.cc).

// NotSupported: the write's family was not opened or created through
// GuardedDB, or its handle was destroyed.
rocksdb::Status UnknownFamily(uint32_t id);
rocksdb::Status NoHandle(const GuardFamily& g);

// Whether the DB holds the key now; a failed read answers false, which
// makes a put insert (an extra copy, harmless) and a delete not erase (a
// stale entry, harmless).
bool DbHolds(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* h, const rocksdb::Slice& key);

// The guard of a write's column family: *g null for a family GuardedDB
// leaves unguarded; NotSupported for one it does not know.
rocksdb::Status FindGuard(const GuardedDB::Impl& impl, uint32_t cf_id, GuardFamily** g);

}  // namespace sstfilter
