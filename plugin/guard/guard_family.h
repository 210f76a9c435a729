// One column family's guard: a dynamic cuckoo filter, the lock that makes
// its caller the filter's single writer, and the switch that turns it off
// when the filter cannot take a key.
//
// The guard only grows between re-presizes: a write adds its key unless the
// filter already matches it, and a delete removes nothing (it is counted).
// So once the filter matches a key it matches it until the next swap
// (matches survive growth and evictions: GrowingTable), and writes need no
// lock against one another or against deletes.
//
// Thread safety: every member from any thread at any time, except Save
// (no concurrent Add). Add serializes on a mutex only for a key the filter
// does not match yet.

#pragma once

#include <sstfilter/dynamic_cuckoo.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <rocksdb/db.h>

#include "dynamic/growing_filter.h"

namespace sstfilter {

class GuardFamily {
 public:
  GuardFamily(uint32_t id, std::string name, std::unique_ptr<DynamicCuckooFilter> filter,
              rocksdb::ColumnFamilyHandle* handle);
  GuardFamily(const GuardFamily&) = delete;
  GuardFamily& operator=(const GuardFamily&) = delete;

  uint32_t id() const { return id_; }
  const std::string& name() const { return name_; }

  // False only if the key is certainly absent from the family. True once the
  // guard is switched off.
  bool MayContainHash(uint64_t hash) const {
    if (disabled_.load(std::memory_order_acquire)) return true;
    // The engine directly, inline: a Get of a present key pays this probe
    // on top of the DB's read, so every pointer hop saved shows.
    return engine_ != nullptr ? engine_->ContainsHash(hash) : filter_->ContainsHash(hash);
  }
  // Starts loading the filter buckets of a key a writer is about to check
  // and insert (a hint; safe at any time).
  void PrefetchHash(uint64_t hash) const { filter_->PrefetchHash(hash); }
  // MayContainHash for n keys at once (the filter prefetches their buckets).
  void MayContainBatch(const rocksdb::Slice* keys, size_t n, bool* out) const;
  bool enabled() const { return !disabled_.load(std::memory_order_acquire); }

  // A write with sequence number `seq` (0: an ingestion, which has none
  // yet) is about to make the key visible: afterwards the filter matches
  // it. True if that took a new entry. If the filter is full, switches the
  // guard off before returning: the write is then never ruled out.
  bool Add(uint64_t hash, uint64_t seq);
  // Add of n keys (a rebuild's bulk load, before the guard is published):
  // one writer lock, the filter loading buckets ahead.
  void AddBatch(const uint64_t* hashes, size_t n);
  // A delete of some key: the guard keeps its entry, stale, until the next
  // re-presize, which the count brings forward.
  void CountDelete() { deletes_.fetch_add(1, std::memory_order_relaxed); }
  // Every key "may exist" until the next Open rebuilds the guard.
  void Disable();

  // Saves the filter (appends); false if the guard is off.
  bool Save(std::string* out) const;

  // ---- re-presize (guard_represize.cc) ------------------------------------
  // A filter rebuilt from a snapshot scan, for the keys the DB holds then,
  // takes over from the grown one: the log carries the keys written since
  // into it.
  //
  // From now on every Add also logs its key, matched or not. Returns the
  // highest sequence number an Add that did not log has seen: a snapshot
  // at or past it holds every key the log misses (Add publishes its
  // sequence number, then reads the logging flag; StartLog sets the flag,
  // then reads the number, both sequentially consistent). The caller keeps
  // ingestions out meanwhile (their keys have no sequence number).
  uint64_t StartLog();
  // The keys logged since StartLog or the last TakeLog, in order.
  std::vector<uint64_t> TakeLog();
  // Adds the keys to `fresh` as Add does; false if `fresh` refused one
  // (full): it is not usable.
  static bool Replay(const std::vector<uint64_t>& hashes, DynamicCuckooFilter* fresh);
  // Under the writer lock, so that no Add falls between: replays the rest
  // of the log into `fresh` and makes it the filter readers query. Stops
  // logging either way; false, the filter unchanged, if the guard is off
  // or `fresh` refused a key.
  bool FinishRepresize(std::unique_ptr<DynamicCuckooFilter> fresh);
  void AbandonLog();
  // Keys plus deletes since the filter was built reach the size at which it
  // wants rebuilding (guard_internal::Impl::RepresizeAt): a hint, read without
  // the lock.
  bool WantsRepresize() const {
    return filter_->Size() + deletes_.load(std::memory_order_relaxed) >=
           represize_at_.load(std::memory_order_relaxed);
  }
  // UINT64_MAX: never (a re-presize is under way, or none is wanted).
  void SetRepresizeAt(uint64_t keys) { represize_at_.store(keys, std::memory_order_relaxed); }

  // The handle re-presize scans read through (null once the user destroyed
  // it: no re-presize then).
  rocksdb::ColumnFamilyHandle* handle() const { return handle_.load(std::memory_order_acquire); }
  void ClearHandle() { handle_.store(nullptr, std::memory_order_release); }
  void MarkDropped() { dropped_.store(true, std::memory_order_release); }
  bool dropped() const { return dropped_.load(std::memory_order_acquire); }

  uint64_t Size() const;
  uint64_t MemoryBytes() const;
  uint64_t errors() const { return errors_.load(std::memory_order_relaxed); }

 private:
  // Adds under write_mu_ unless the filter matches; logs while logging.
  bool AddLocked(uint64_t hash);

  // What every read touches first, together at the object's start.
  std::atomic<bool> disabled_{false};
  // filter_'s engine (GrowingEngineOf; it survives ReplaceWith), or null
  // for a read-only filter loaded from versions 1 to 3.
  const dynamic_cuckoo::GrowingFilter* engine_;
  std::unique_ptr<DynamicCuckooFilter> filter_;

  const uint32_t id_;
  const std::string name_;
  mutable std::mutex write_mu_;  // the filter's single writer
  std::atomic<bool> dropped_{false};
  std::atomic<rocksdb::ColumnFamilyHandle*> handle_;
  std::atomic<uint64_t> errors_{0};
  std::atomic<uint64_t> deletes_{0};
  std::atomic<uint64_t> represize_at_{UINT64_MAX};
  std::atomic<uint64_t> max_seq_{0};  // the highest seq an Add has seen
  std::atomic<bool> logging_{false};  // changed under write_mu_
  std::vector<uint64_t> log_;         // under write_mu_
};

}  // namespace sstfilter
