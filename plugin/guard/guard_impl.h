// GuardedDB's state: the guarded column families (looked up without locks
// by readers), their write hooks, the counters.

#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include <rocksdb/db.h>
#include <sstfilter/dynamic_cuckoo.h>
#include <sstfilter/guard_options.h>

#include "format/hash.h"
#include "guard/guard_family.h"
#include "guard/guard_hook.h"
#include "guard/probe_gate.h"

namespace sstfilter {
namespace guard_internal {

// GuardedDB points to it (GuardedDB::Impl); a struct of its own, not a
// member type, so that it needs only the options, not the class.
struct Impl {
  Impl(GuardOptions guard, std::string db_path);
  ~Impl();

  // Column families by id. Readers load the current table without a lock;
  // a change publishes a new table and keeps the old one until the end
  // (families change rarely).
  struct Table {
    std::vector<GuardFamily*> guard;  // null: not guarded (or not ours)
  };
  const Table* table() const { return table_.load(std::memory_order_acquire); }
  // The family's guard, or null if unguarded.
  GuardFamily* Lookup(uint32_t id) const {
    const Table* t = table();
    return id < t->guard.size() ? t->guard[id] : nullptr;
  }
  // Lookup(cf->GetID()), the read path's form. The DB's own default
  // handle (what DefaultColumnFamily() returns through every StackableDB
  // above it, a TransactionDB's included) is known by its address: its
  // guard comes from one load, not the handle's virtual GetID, its
  // column family and the table. The address is only compared, never
  // followed; any other handle takes Lookup.
  const GuardFamily* GuardOf(rocksdb::ColumnFamilyHandle* cf) const {
    if (cf == default_handle_) return default_guard_.load(std::memory_order_acquire);
    return Lookup(cf->GetID());
  }
  void Publish(uint32_t id, std::unique_ptr<GuardFamily> guard);  // guard may be null
  std::vector<GuardFamily*> Families() const;  // every guard, dropped ones too

  bool Guards(const std::string& name) const;
  rocksdb::Status NewFilter(uint64_t capacity, std::unique_ptr<DynamicCuckooFilter>* out) const;

  // Reads ruled out, and Gets sent to the DB unprobed (adaptive probes),
  // counted in one of a few slots per DB, picked round-robin by thread so
  // that two readers rarely share a cache line.
  void CountRuledOut(uint64_t n);
  uint64_t RuledOut() const;
  uint64_t Unprobed() const;
  bool adaptive_probes() const { return adaptive_probes_; }
  // A single-key Get of `hash` in family `g` with adaptive probes: true if
  // the calling thread's gate lets it probe and `g` rules the key out
  // (counted). The thread's gate serves this DB: a thread that has read
  // another GuardedDB since starts it afresh (probe_gate.h).
  bool GatedRuledOut(const GuardFamily& g, uint64_t hash);

  // A hook for a family's memtable_factory, installed before the family
  // is opened or created (guard_hook.h); attached to the family's guard
  // once that is published. Close detaches every hook.
  std::shared_ptr<GuardHook> NewHook();
  void AttachHook(GuardHook* hook, GuardFamily* g);
  void DetachHooks();
  // The DB the guard's scans read (the root DB, below any transaction
  // layer), set by Open.
  // Before any guard is published (GuardOf reads the default handle
  // without a lock).
  void set_db(rocksdb::DB* db) {
    db_ = db;
    default_handle_ = db->DefaultColumnFamily();
  }
  // Whether a rebuild also scans the root DB below the base (a
  // TransactionDB's: GuardedDB::Open says why); set before the guards are
  // built.
  void set_scan_root(bool on) { scan_root_ = on; }
  bool scan_root() const { return scan_root_; }
  rocksdb::DB* db() const { return db_; }

  // Restart bookkeeping. The hooks see every write of the guarded families,
  // so Close may save the DB's latest sequence number, unless something
  // changed the DB that they cannot see: an ingestion (through this object
  // or around it; the listener Open installs reports it).
  bool unfollowed() const { return unfollowed_.load(std::memory_order_acquire); }
  // From the listener Open installs, after RocksDB made an ingestion's
  // files visible in family `cf_name`: marks the session unfollowed, and
  // unless this object made the ingestion (its keys entered first; see
  // IngestScope), switches that family's guard off until the next Open.
  void OnIngested(const std::string& cf_name);
  // Marks the calling thread as inside this object's own ingestion, whose
  // listener call comes on the same thread.
  class IngestScope {
   public:
    IngestScope();
    ~IngestScope();
    IngestScope(const IngestScope&) = delete;
    IngestScope& operator=(const IngestScope&) = delete;
  };

  // Re-presize (guard_represize.cc). At most one runs at a time, over every
  // family; a finished run's thread is joined by the next start or by
  // StopRepresize.
  // After a write's change of `g` (from its hook, inside RocksDB's write):
  // starts a background re-presize of `g` if it wants one, the option is
  // on, none runs and none is barred. Never waits.
  void MaybeRepresize(rocksdb::DB* db, GuardFamily* g);
  // Runs one on the calling thread, after any running one.
  rocksdb::Status RepresizeNow(rocksdb::DB* db, GuardFamily* g);
  // Cancels the running one and waits for it; with `forever`, none starts
  // again (Close).
  void StopRepresize(bool forever = false);
  void WaitForRepresize();
  // Keys that become visible later than their memtable insert or their
  // entry into the guard, at a commit a snapshot scan cannot foresee: a
  // prepared two-phase ingestion, or a TransactionDB under the guard (its
  // WRITE_PREPARED and WRITE_UNPREPARED policies insert before commit). No
  // re-presize runs for the rest of the session; `why` says which.
  void BarRepresize(const char* why) {
    std::lock_guard<std::mutex> lock(admin_mu_);
    barred_why_ = why;
    represize_barred_.store(true, std::memory_order_release);
  }
  std::string barred_why() const {
    std::lock_guard<std::mutex> lock(admin_mu_);
    return barred_why_;
  }
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
  // Held shared by an ingestion from its first key's insert until its files
  // are visible, exclusively by a re-presize until its snapshot: ingested
  // keys have no sequence number for the snapshot to cover.
  std::shared_mutex ingest_gate;
  GuardStats open_stats;  // loaded/rebuilt, set once by Open
  // The live SST files when Open finished (sorted): Close leaves out of the
  // saved list every SST that became live since and that this session did
  // not write, so that the next Open sees it as new and rebuilds.
  std::vector<uint64_t> open_sst_files;

 private:
  std::atomic<bool> unfollowed_{false};
  rocksdb::DB* db_ = nullptr;
  rocksdb::ColumnFamilyHandle* default_handle_ = nullptr;
  const bool adaptive_probes_;  // options.adaptive_probes, beside what Get reads
  const uint64_t id_;           // this DB's, for the threads' gates (never 0)
  std::atomic<GuardFamily*> default_guard_{nullptr};  // table()->guard[0], for GuardOf
  bool scan_root_ = false;
  std::vector<std::shared_ptr<GuardHook>> hooks_;  // under admin_mu_
  std::atomic<const Table*> table_;
  mutable std::mutex admin_mu_;  // changes of the table, hooks, barred_why_
  std::vector<std::unique_ptr<const Table>> tables_;
  std::vector<std::unique_ptr<GuardFamily>> owned_;
  struct alignas(64) Counters {
    std::atomic<uint64_t> ruled_out{0};
    std::atomic<uint64_t> unprobed{0};
  };
  static constexpr size_t kCounterSlots = 8;
  Counters counters_[kCounterSlots];
  std::mutex represize_start_mu_;  // starts and stops of the background thread
  std::mutex represize_run_mu_;    // held by the running re-presize
  std::thread represize_thread_;
  std::atomic<bool> represize_busy_{false};
  std::atomic<bool> represize_stop_{false};
  std::atomic<bool> represize_closed_{false};
  std::atomic<bool> represize_barred_{false};
  std::string barred_why_;  // under admin_mu_
  std::atomic<uint64_t> represizes_{0};
  std::atomic<uint64_t> represize_micros_{0};
  std::atomic<uint64_t> represize_bytes_{0};
  std::atomic<uint64_t> represize_peak_bytes_{0};
};

}  // namespace guard_internal
}  // namespace sstfilter
