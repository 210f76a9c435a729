// The key guard's re-presize: a family's filter rebuilt for the keys the DB
// holds now, off the write path, then swapped in.
//
// A filter grown from n to 4n keys spends more bits per key than one sized
// for 4n: its growth steps widen and split buckets, and each phase of growth
// gets a smaller share of the FPR target, so its fingerprints lengthen
// (docs/design/key_guard_lifecycle.md). Rebuilding from a scan each time the family
// doubles resets both.
//
// Why no key is missed. A key the DB holds after the swap was written
// either by an entry whose hook logged it (every Add after StartLog logs),
// or by one whose hook ran before: that entry's sequence number is at most
// the one StartLog returns (GuardFamily::StartLog), so a snapshot at or
// past it sees the entry, and the scan reads the key. Ingestions, whose
// keys have no sequence number, are kept out until the snapshot (the
// ingest gate). The new filter is the snapshot's keys, then the log; the
// last of the log is replayed under the filter's writer lock, and the swap
// (DynamicCuckooFilter::ReplaceWith) is a table publish that readers retry
// across. Any doubt -- the guard off, the new filter refusing a key, the
// snapshot not reaching the logged sequence number in time, a stop --
// keeps the old filter.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

#include <rocksdb/iterator.h>
#include <rocksdb/snapshot.h>
#include <sstfilter/guarded_db.h>

#include "guard/guard_impl.h"
#include "guard/guard_restart.h"
#include "rocksdb_adapter/slice_hash.h"

namespace sstfilter {
namespace {

using Clock = std::chrono::steady_clock;

// Keys replayed outside the writer lock until a round leaves fewer than
// this; the rest is replayed under it, blocking new keys' writes for that
// long only.
constexpr size_t kFinalReplay = 4096;

// A write's entries are in the memtable before its sequence number is
// published; the snapshot waits that long, a few microseconds, for the
// writes in flight when logging started. A write that never publishes (a
// failed WAL write after its memtable insert cannot happen; this is the
// bound on doubt) abandons the re-presize.
constexpr auto kPublishWait = std::chrono::seconds(10);

// A snapshot that sees every entry with a sequence number up to `seq`;
// null after kPublishWait.
const rocksdb::Snapshot* SnapshotAtLeast(rocksdb::DB* db, uint64_t seq) {
  const auto deadline = Clock::now() + kPublishWait;
  for (;;) {
    const rocksdb::Snapshot* snapshot = db->GetSnapshot();
    if (snapshot == nullptr || snapshot->GetSequenceNumber() >= seq) return snapshot;
    db->ReleaseSnapshot(snapshot);
    if (Clock::now() >= deadline) return nullptr;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

// Inserts the snapshot's keys into `fresh`, a batch of hashes at a time;
// Incomplete if *stop turned true or the filter refused a key.
rocksdb::Status ScanSnapshotInto(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* h,
                                 const rocksdb::Snapshot* snapshot,
                                 const std::atomic<bool>& stop, DynamicCuckooFilter* fresh) {
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  ro.fill_cache = false;  // a scan would evict the working set
  ro.total_order_seek = true;
  ro.readahead_size = 2 << 20;
  constexpr size_t kBatch = 1024;
  uint64_t hashes[kBatch];
  DynamicStatus statuses[kBatch];
  size_t n = 0;
  const auto insert = [&]() {
    fresh->InsertHashBatch(hashes, n, statuses);
    for (size_t i = 0; i < n; ++i) {
      // Distinct keys sharing an entry take a copy each, up to the limit;
      // past it the key matches already.
      if (statuses[i] != DynamicStatus::kOk && statuses[i] != DynamicStatus::kTooManyCopies) {
        return rocksdb::Status::Incomplete("sstfilter guard: re-presize: ",
                                           DynamicStatusName(statuses[i]));
      }
    }
    n = 0;
    return rocksdb::Status::OK();
  };
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro, h));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    hashes[n++] = KeyHash(it->key());
    if (n < kBatch) continue;
    if (stop.load(std::memory_order_relaxed)) {
      return rocksdb::Status::Incomplete("sstfilter guard: re-presize stopped");
    }
    const rocksdb::Status s = insert();
    if (!s.ok()) return s;
  }
  if (!it->status().ok()) return it->status();
  return insert();
}

rocksdb::Status RepresizeFamily(rocksdb::DB* db, guard_internal::Impl* impl, GuardFamily* g) {
  const auto start = Clock::now();
  const std::atomic<bool>& stop = impl->represize_stop();
  const rocksdb::Snapshot* snapshot = nullptr;
  rocksdb::ColumnFamilyHandle* h = nullptr;
  uint64_t planned = 0;
  {
    std::unique_lock<std::shared_mutex> gate(impl->ingest_gate);
    if (impl->represize_barred()) {
      return rocksdb::Status::NotSupported("sstfilter guard: no re-presize: ",
                                           impl->barred_why());
    }
    h = g->handle();
    if (h == nullptr || g->dropped() || !g->enabled()) {
      return rocksdb::Status::Incomplete("sstfilter guard: the family is off, dropped or "
                                         "has no handle");
    }
    const uint64_t unlogged = g->StartLog();
    // The entries, plus the few keys that matched another key's entry at
    // their first write and took none (the FPR's share; the scan gives
    // every key its own): a filter sized short widens, a quarter more
    // memory.
    const uint64_t entries = g->Size();
    planned = entries + static_cast<uint64_t>(4 * impl->options.target_fpr *
                                              static_cast<double>(entries)) + 64;
    snapshot = SnapshotAtLeast(db, unlogged);
    if (snapshot == nullptr) {
      g->AbandonLog();
      g->SetRepresizeAt(impl->RepresizeAt(g->Size()));
      return rocksdb::Status::Incomplete("sstfilter guard: re-presize: writes in flight did not "
                                         "become visible");
    }
  }
  // Sized for the entries the guard holds at the snapshot (every key there
  // has one; stale ones add some), the new filter takes the scan's keys as
  // they come: a re-presize holds that filter and one batch of hashes.
  std::unique_ptr<DynamicCuckooFilter> fresh;
  rocksdb::Status s = impl->NewFilter(planned, &fresh);
  if (s.ok()) {
    impl->HoldRepresizeBytes(fresh->MemoryBytes());
    s = ScanSnapshotInto(db, h, snapshot, stop, fresh.get());
  }
  db->ReleaseSnapshot(snapshot);
  if (fresh != nullptr) impl->HoldRepresizeBytes(fresh->MemoryBytes());
  for (bool more = s.ok(); more;) {
    const std::vector<uint64_t> ops = g->TakeLog();
    if (!GuardFamily::Replay(ops, fresh.get())) {
      s = rocksdb::Status::Incomplete("sstfilter guard: re-presize: the log did not replay");
    } else if (stop.load(std::memory_order_relaxed)) {
      s = rocksdb::Status::Incomplete("sstfilter guard: re-presize stopped");
    }
    more = s.ok() && ops.size() >= kFinalReplay;
  }
  if (s.ok() && !g->FinishRepresize(std::move(fresh))) {
    s = rocksdb::Status::Incomplete("sstfilter guard: re-presize: the guard is off or the log "
                                    "did not replay");
  }
  fresh.reset();
  impl->HoldRepresizeBytes(0);
  if (!s.ok()) {
    g->AbandonLog();
    g->SetRepresizeAt(impl->RepresizeAt(g->Size()));  // no retry before it doubles again
    return s;
  }
  g->SetRepresizeAt(impl->RepresizeAt(g->Size()));
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  impl->CountRepresize(seconds);
  if (impl->options.report_progress) {
    std::fprintf(stderr, "sstfilter guard: re-presized [%s]: %llu keys in %.2f s\n",
                 g->name().c_str(), static_cast<unsigned long long>(g->Size()), seconds);
  }
  return s;
}

}  // namespace

uint64_t guard_internal::Impl::RepresizeAt(uint64_t keys) const {
  if (!options.background_represize) return UINT64_MAX;
  return std::max(2 * keys, options.min_planned_keys);
}

void guard_internal::Impl::HoldRepresizeBytes(uint64_t bytes) {
  represize_bytes_.store(bytes, std::memory_order_relaxed);
  if (bytes > represize_peak_bytes_.load(std::memory_order_relaxed)) {
    represize_peak_bytes_.store(bytes, std::memory_order_relaxed);
  }
}

void guard_internal::Impl::CountRepresize(double seconds) {
  represizes_.fetch_add(1, std::memory_order_relaxed);
  represize_micros_.fetch_add(static_cast<uint64_t>(seconds * 1e6), std::memory_order_relaxed);
}

void guard_internal::Impl::MaybeRepresize(rocksdb::DB* db, GuardFamily* g) {
  if (!options.background_represize || !g->WantsRepresize() ||
      represize_busy_.load(std::memory_order_acquire)) {
    return;
  }
  // Inside RocksDB's write (a memtable hook): only try, never wait.
  std::unique_lock<std::mutex> lock(represize_start_mu_, std::try_to_lock);
  if (!lock.owns_lock() || represize_busy_.load(std::memory_order_acquire) ||
      represize_closed_.load(std::memory_order_acquire) || !g->WantsRepresize()) {
    return;
  }
  if (represize_thread_.joinable()) represize_thread_.join();  // finished
  g->SetRepresizeAt(UINT64_MAX);  // wanted no more while it runs
  represize_busy_.store(true, std::memory_order_release);
  represize_thread_ = std::thread([this, db, g] {
    {
      std::lock_guard<std::mutex> run(represize_run_mu_);
      const rocksdb::Status s = RepresizeFamily(db, this, g);
      if (!s.ok() && options.report_progress) {
        std::fprintf(stderr, "sstfilter guard: re-presize of [%s] not done: %s\n",
                     g->name().c_str(), s.ToString().c_str());
      }
    }
    represize_busy_.store(false, std::memory_order_release);
  });
}

rocksdb::Status guard_internal::Impl::RepresizeNow(rocksdb::DB* db, GuardFamily* g) {
  std::lock_guard<std::mutex> run(represize_run_mu_);
  return RepresizeFamily(db, this, g);
}

void guard_internal::Impl::StopRepresize(bool forever) {
  std::lock_guard<std::mutex> lock(represize_start_mu_);
  if (forever) represize_closed_.store(true, std::memory_order_release);
  represize_stop_.store(true, std::memory_order_release);
  if (represize_thread_.joinable()) represize_thread_.join();
  // A run on a caller's thread (RepresizeNow) sees the stop too.
  std::lock_guard<std::mutex> run(represize_run_mu_);
  represize_stop_.store(false, std::memory_order_release);
}

void guard_internal::Impl::WaitForRepresize() {
  std::lock_guard<std::mutex> lock(represize_start_mu_);
  if (represize_thread_.joinable()) represize_thread_.join();
}

rocksdb::Status GuardedDB::RepresizeGuard(rocksdb::ColumnFamilyHandle* cf) {
  GuardFamily* g = impl_->Lookup(cf->GetID());
  if (g == nullptr) {
    return rocksdb::Status::NotSupported("sstfilter guard: column family '" + cf->GetName() +
                                         "' is not guarded");
  }
  return impl_->RepresizeNow(impl_->db(), g);
}

void GuardedDB::WaitForGuardWork() { impl_->WaitForRepresize(); }

}  // namespace sstfilter
