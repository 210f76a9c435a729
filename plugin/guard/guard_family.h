// One column family's guard: a dynamic cuckoo filter, the lock that makes
// its caller the filter's single writer, and the switch that turns it off
// when the filter cannot take a key.
//
// Thread safety: MayContain from any thread at any time; Insert and Erase
// from any thread (they serialize on a mutex). The caller orders them
// against the DB's own writes (guarded_db_write.cc).

#pragma once

#include <sstfilter/dynamic_cuckoo.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <rocksdb/db.h>

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
    return disabled_.load(std::memory_order_acquire) || filter_->ContainsHash(hash);
  }
  // Starts loading the filter buckets of a key a writer is about to check
  // and insert (a hint; safe at any time).
  void PrefetchHash(uint64_t hash) const { filter_->PrefetchHash(hash); }
  // MayContainHash for n keys at once (the filter prefetches their buckets).
  void MayContainBatch(const rocksdb::Slice* keys, size_t n, bool* out) const;
  bool enabled() const { return !disabled_.load(std::memory_order_acquire); }

  // Adds one copy of the key (or, when its fingerprint pair is full of
  // stale copies, adopts one). If the filter is full, switches the guard off
  // before returning: the caller's write that follows is then never ruled
  // out.
  void InsertHash(uint64_t hash);
  // InsertHash of each of n keys, in order, holding the writer lock for
  // the whole batch, the filter loading buckets ahead (a rebuild's bulk
  // load, before the guard is published).
  void InsertHashBatch(const uint64_t* hashes, size_t n);
  // Removes the one copy the key owns. Precondition: it owns one.
  void EraseHash(uint64_t hash);

  // Saves the filter (appends); false if the guard is off.
  bool Save(std::string* out) const;

  // ---- re-presize (guard_represize.cc) ------------------------------------
  // A filter rebuilt from a snapshot scan, for the keys the DB holds then,
  // takes over from the grown one: the log carries the writes made since
  // the snapshot into it.
  struct LoggedOp {
    uint64_t hash;
    bool erase;
  };
  // From now on every Insert and Erase is also logged. The caller holds the
  // key-lock gate exclusively, so that no write is between its guard update
  // and its DB write, and takes the snapshot it scans under that gate:
  // then the snapshot plus the log, in order, is every key's copy.
  void StartLog();
  // The ops logged since StartLog or the last TakeLog, in order.
  std::vector<LoggedOp> TakeLog();
  // Applies ops to `fresh` as the guard applied them; false if `fresh`
  // refused one (full, or an erase it cannot match): it is not usable.
  static bool Replay(const std::vector<LoggedOp>& ops, DynamicCuckooFilter* fresh);
  // Under the writer lock, so that no op falls between: replays the rest
  // of the log into `fresh` and makes it the filter readers query. Stops
  // logging either way; false, the filter unchanged, if the guard is off
  // or `fresh` refused an op.
  bool FinishRepresize(std::unique_ptr<DynamicCuckooFilter> fresh);
  void AbandonLog();
  // The family holds the keys at which the filter wants rebuilding
  // (GuardedDB::Impl::RepresizeAt): a hint, read without the lock.
  bool WantsRepresize() const {
    return filter_->Size() >= represize_at_.load(std::memory_order_relaxed);
  }
  // UINT64_MAX: never (a re-presize is under way, or none is wanted).
  void SetRepresizeAt(uint64_t keys) { represize_at_.store(keys, std::memory_order_relaxed); }

  // The handle writes use for "does the DB hold this key" (null once the
  // user destroyed it: writes are then refused).
  rocksdb::ColumnFamilyHandle* handle() const { return handle_.load(std::memory_order_acquire); }
  void ClearHandle() { handle_.store(nullptr, std::memory_order_release); }
  void MarkDropped() { dropped_.store(true, std::memory_order_release); }
  bool dropped() const { return dropped_.load(std::memory_order_acquire); }

  uint64_t Size() const;
  uint64_t MemoryBytes() const;
  uint64_t errors() const { return errors_.load(std::memory_order_relaxed); }
  uint64_t adopted() const { return adopted_.load(std::memory_order_relaxed); }

 private:
  // Books one insert's status (adopted copies; off when the filter is
  // full). Requires write_mu_.
  void Account(DynamicStatus s);

  const uint32_t id_;
  const std::string name_;
  mutable std::mutex write_mu_;  // the filter's single writer
  std::unique_ptr<DynamicCuckooFilter> filter_;
  std::atomic<bool> disabled_{false};
  std::atomic<bool> dropped_{false};
  std::atomic<rocksdb::ColumnFamilyHandle*> handle_;
  std::atomic<uint64_t> errors_{0};
  std::atomic<uint64_t> adopted_{0};
  std::atomic<uint64_t> represize_at_{UINT64_MAX};
  bool logging_ = false;  // under write_mu_, as log_
  std::vector<LoggedOp> log_;
};

}  // namespace sstfilter
