// GuardedDB's state: the guarded column families (looked up without locks
// by readers), the striped per-key writer locks, the counters.

#pragma once

#include <sstfilter/guarded_db.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
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

  // Re-presize (guard_represize.cc). At most one runs at a time, over every
  // family; a finished run's thread is joined by the next start or by
  // StopRepresize.
  // After a write's insert: starts a background re-presize of `g` if it
  // wants one, the option is on, none runs and none is barred.
  void MaybeRepresize(rocksdb::DB* db, GuardFamily* g);
  // Runs one on the calling thread, after any running one.
  rocksdb::Status RepresizeNow(rocksdb::DB* db, GuardFamily* g);
  // Cancels the running one and waits for it; with `forever`, none starts
  // again (Close).
  void StopRepresize(bool forever = false);
  void WaitForRepresize();
  // A prepared two-phase ingestion makes keys visible later, at a commit
  // the guard does not see: a snapshot scan could miss them, so no
  // re-presize runs for the rest of the session.
  void BarRepresize() { represize_barred_.store(true, std::memory_order_release); }
  // For a filter built for `keys`: the size at which it wants rebuilding,
  // twice that and at least min_planned_keys (UINT64_MAX with the
  // background re-presize off).
  uint64_t RepresizeAt(uint64_t keys) const;
  void CountRepresize(double seconds);
  // What the running re-presize holds beyond the guards' filters (its key
  // buffer, the filter it builds); set by it alone, 0 when none runs.
  void HoldRepresizeBytes(uint64_t bytes);
  uint64_t represize_bytes() const { return represize_bytes_.load(std::memory_order_relaxed); }
  uint64_t represize_peak_bytes() const {
    return represize_peak_bytes_.load(std::memory_order_relaxed);
  }
  uint64_t represizes() const { return represizes_.load(std::memory_order_relaxed); }
  double represize_seconds() const {
    return represize_micros_.load(std::memory_order_relaxed) / 1e6;
  }
  bool represize_barred() const { return represize_barred_.load(std::memory_order_acquire); }
  const std::atomic<bool>& represize_stop() const { return represize_stop_; }

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
  std::mutex represize_start_mu_;  // starts and stops of the background thread
  std::mutex represize_run_mu_;    // held by the running re-presize
  std::thread represize_thread_;
  std::atomic<bool> represize_busy_{false};
  std::atomic<bool> represize_stop_{false};
  std::atomic<bool> represize_closed_{false};
  std::atomic<bool> represize_barred_{false};
  std::atomic<uint64_t> represizes_{0};
  std::atomic<uint64_t> represize_micros_{0};
  std::atomic<uint64_t> represize_bytes_{0};
  std::atomic<uint64_t> represize_peak_bytes_{0};
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
