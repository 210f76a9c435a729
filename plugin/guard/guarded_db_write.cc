// GuardedDB's write paths. The order that keeps "never rules out a key the
// DB holds" (docs/design/key_guard.md), for each key, under its stripe
// lock so that no other guarded writer of the key interleaves:
//   1. held = the guard may contain the key AND the DB holds it now;
//   2. a write that can make the key visible (Put, Merge, PutEntity,
//      ingestion): insert it into the guard unless held, BEFORE the write;
//   3. the DB write;
//   4. a delete, once it succeeded, of a key that owned a copy (held, or
//      inserted in 2): erase that copy, AFTER the delete is visible.
// Every key the DB holds owns exactly one copy in the guard, so erases never
// remove another key's fingerprint and overwrites add nothing.
//
// Every write that succeeded counts the sequence numbers it consumed
// (Impl::CountSequences): one per record, the WriteBatch's Count().
// Ingestion and import: guarded_db_ingest.cc.

#include <sstfilter/guarded_db.h>

#include <algorithm>
#include <shared_mutex>

#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include "guard/guard_impl.h"
#include "rocksdb/slice_hash.h"

namespace sstfilter {
namespace {

using rocksdb::Slice;
using rocksdb::Status;

// OK for a family GuardedDB leaves unguarded: user-defined timestamps are
// refused on guarded ones.
Status UnguardedOnly(const GuardedDB::Impl& impl, rocksdb::ColumnFamilyHandle* cf) {
  GuardFamily* g = nullptr;
  const Status found = FindGuard(impl, cf->GetID(), &g);
  if (!found.ok() || g == nullptr) return found;
  return Status::NotSupported("sstfilter guard: user-defined timestamps on a guarded column "
                              "family");
}

// The status of a write of `records` records, which consumed that many
// sequence numbers if it succeeded.
Status Counted(GuardedDB::Impl* impl, uint64_t records, Status s) {
  if (s.ok()) impl->CountSequences(records);
  return s;
}

// Steps 1-4 for one key of `cf`. An unguarded family, or a guard switched
// off, has nothing to keep: the write alone.
template <typename Write>
Status WriteOne(rocksdb::DB* db, GuardedDB::Impl* impl, rocksdb::ColumnFamilyHandle* cf,
                const Slice& key, bool put, const Write& write) {
  GuardFamily* g = nullptr;
  const Status found = FindGuard(*impl, cf->GetID(), &g);
  if (!found.ok()) return found;
  if (g == nullptr || !g->enabled()) return Counted(impl, 1, write());
  rocksdb::ColumnFamilyHandle* h = g->handle();
  if (h == nullptr) return NoHandle(*g);
  const uint64_t hash = KeyHash(key);
  // The filter's cache misses overlap the locks' (the stripe is a cold line).
  g->PrefetchHash(hash);
  std::shared_lock<std::shared_mutex> gate(impl->locks.gate);
  std::lock_guard<std::mutex> lock(impl->locks.stripe(KeyLocks::StripeOf(g->id(), hash)));
  const bool held = g->MayContainHash(hash) && DbHolds(db, h, key);
  if (put) {
    if (!held) {
      g->InsertHash(hash);
      impl->MaybeRepresize(db, g);
    }
    return Counted(impl, 1, write());
  }
  const Status s = Counted(impl, 1, write());
  if (s.ok() && held) g->EraseHash(hash);
  return s;
}

// One record of a multi-key write.
struct KeyOp {
  GuardFamily* guard;
  std::string key;
  uint64_t hash;
  bool put;      // Put/Merge/PutEntity/TimedPut; else Delete/SingleDelete
  bool keep;     // a delete whose key must stay in the guard (SingleDelete)
  size_t order;  // position in the write
};

// Steps 1-4 for many keys: their stripes locked (StripeGuard) for the
// whole write of `records` records. A key's final state is its last
// record's (a later DeleteRange may remove it too: then it stays in the
// guard, stale).
template <typename Write>
Status WriteMany(rocksdb::DB* db, GuardedDB::Impl* impl, std::vector<KeyOp> ops,
                 uint64_t records, const Write& write) {
  if (ops.empty()) return Counted(impl, records, write());
  std::sort(ops.begin(), ops.end(), [](const KeyOp& a, const KeyOp& b) {
    if (a.guard->id() != b.guard->id()) return a.guard->id() < b.guard->id();
    if (a.key != b.key) return a.key < b.key;
    return a.order < b.order;
  });
  struct Key {
    const KeyOp* op;  // the last record
    bool any_put;
    bool owns = false;
  };
  std::vector<Key> keys;
  std::vector<size_t> stripes;
  for (size_t i = 0; i < ops.size(); ++i) {
    const bool same = !keys.empty() && keys.back().op->guard == ops[i].guard &&
                      keys.back().op->key == ops[i].key;
    if (same) {
      keys.back().op = &ops[i];
      keys.back().any_put = keys.back().any_put || ops[i].put;
    } else {
      keys.push_back({&ops[i], ops[i].put});
      stripes.push_back(KeyLocks::StripeOf(ops[i].guard->id(), ops[i].hash));
    }
  }
  for (const Key& k : keys) {
    if (k.op->guard->handle() == nullptr) return NoHandle(*k.op->guard);
  }
  StripeGuard lock(&impl->locks, std::move(stripes));
  for (Key& k : keys) {
    GuardFamily* g = k.op->guard;
    const bool held = g->MayContainHash(k.op->hash) && DbHolds(db, g->handle(), k.op->key);
    if (k.any_put && !held) {
      g->InsertHash(k.op->hash);
      impl->MaybeRepresize(db, g);
    }
    k.owns = held || k.any_put;
  }
  const Status s = Counted(impl, records, write());
  if (s.ok()) {
    for (const Key& k : keys) {
      if (k.owns && !k.op->put && !k.op->keep) k.op->guard->EraseHash(k.op->hash);
    }
  }
  return s;
}

// Collects a WriteBatch's records on guarded families; refuses the record
// types whose effect it cannot follow.
class Collector : public rocksdb::WriteBatch::Handler {
 public:
  explicit Collector(const GuardedDB::Impl& impl) : impl_(impl) {}
  std::vector<KeyOp> ops;

  Status PutCF(uint32_t id, const Slice& key, const Slice&) override { return Add(id, key, true); }
  Status PutEntityCF(uint32_t id, const Slice& key, const Slice&) override {
    return Add(id, key, true);
  }
  Status MergeCF(uint32_t id, const Slice& key, const Slice&) override {
    return Add(id, key, true);
  }
#if ROCKSDB_MAJOR >= 9
  Status TimedPutCF(uint32_t id, const Slice& key, const Slice&, uint64_t) override {
    return Add(id, key, true);
  }
#endif
  Status DeleteCF(uint32_t id, const Slice& key) override { return Add(id, key, false); }
  // A batch cannot be rewritten with public APIs (entities), so its
  // SingleDeletes are not followed: the key stays in the guard, stale (see
  // GuardedDB::SingleDelete for why erasing would be unsafe).
  Status SingleDeleteCF(uint32_t id, const Slice& key) override { return Add(id, key, false, true); }
  // Removes keys only: they stay in the guard, stale.
  Status DeleteRangeCF(uint32_t, const Slice&, const Slice&) override { return Status::OK(); }
  void LogData(const Slice&) override {}
  Status PutBlobIndexCF(uint32_t, const Slice&, const Slice&) override {
    return Refuse("blob index records");
  }
  Status MarkBeginPrepare(bool) override { return Refuse("two-phase commit markers"); }
  Status MarkEndPrepare(const Slice&) override { return Refuse("two-phase commit markers"); }
  Status MarkNoop(bool) override { return Refuse("noop markers"); }
  Status MarkRollback(const Slice&) override { return Refuse("two-phase commit markers"); }
  Status MarkCommit(const Slice&) override { return Refuse("two-phase commit markers"); }
  Status MarkCommitWithTimestamp(const Slice&, const Slice&) override {
    return Refuse("two-phase commit markers");
  }

 private:
  static Status Refuse(const char* what) {
    return Status::NotSupported(std::string("sstfilter guard: WriteBatch with ") + what);
  }
  Status Add(uint32_t id, const Slice& key, bool put, bool keep = false) {
    GuardFamily* g = nullptr;
    const Status found = FindGuard(impl_, id, &g);
    if (!found.ok()) return found;
    if (g == nullptr || !g->enabled()) return Status::OK();
    ops.push_back({g, key.ToString(), KeyHash(key), put, keep, ops.size()});
    return Status::OK();
  }
  const GuardedDB::Impl& impl_;
};

}  // namespace

Status GuardedDB::Put(const rocksdb::WriteOptions& o, rocksdb::ColumnFamilyHandle* cf,
                      const Slice& key, const Slice& value) {
  return WriteOne(db_, impl_.get(), cf, key, true, [&] { return db_->Put(o, cf, key, value); });
}

Status GuardedDB::PutEntity(const rocksdb::WriteOptions& o, rocksdb::ColumnFamilyHandle* cf,
                            const Slice& key, const rocksdb::WideColumns& columns) {
  return WriteOne(db_, impl_.get(), cf, key, true,
                  [&] { return db_->PutEntity(o, cf, key, columns); });
}

#if ROCKSDB_MAJOR >= 9
Status GuardedDB::PutEntity(const rocksdb::WriteOptions& o, const Slice& key,
                            const rocksdb::AttributeGroups& groups) {
  std::vector<KeyOp> ops;
  for (const auto& group : groups) {
    GuardFamily* g = nullptr;
    const Status found = FindGuard(*impl_, group.column_family()->GetID(), &g);
    if (!found.ok()) return found;
    if (g != nullptr && g->enabled()) {
      ops.push_back({g, key.ToString(), KeyHash(key), true, false, 0});
    }
  }
  // One PutEntity record per group.
  return WriteMany(db_, impl_.get(), std::move(ops), groups.size(),
                   [&] { return db_->PutEntity(o, key, groups); });
}
#endif

Status GuardedDB::Merge(const rocksdb::WriteOptions& o, rocksdb::ColumnFamilyHandle* cf,
                        const Slice& key, const Slice& value) {
  return WriteOne(db_, impl_.get(), cf, key, true, [&] { return db_->Merge(o, cf, key, value); });
}

Status GuardedDB::Delete(const rocksdb::WriteOptions& o, rocksdb::ColumnFamilyHandle* cf,
                         const Slice& key) {
  return WriteOne(db_, impl_.get(), cf, key, false, [&] { return db_->Delete(o, cf, key); });
}

// On a guarded family a SingleDelete is written as a Delete: RocksDB lets a
// SingleDelete of a key put more than once resurrect an older value later,
// which the guard, having erased the key, would then rule out. A Delete has
// the same effect when SingleDelete is used as documented.
Status GuardedDB::SingleDelete(const rocksdb::WriteOptions& o, rocksdb::ColumnFamilyHandle* cf,
                               const Slice& key) {
  GuardFamily* g = nullptr;
  const Status found = FindGuard(*impl_, cf->GetID(), &g);
  if (!found.ok()) return found;
  if (g == nullptr) return Counted(impl_.get(), 1, db_->SingleDelete(o, cf, key));
  return WriteOne(db_, impl_.get(), cf, key, false, [&] { return db_->Delete(o, cf, key); });
}

// Timestamped writes: only on unguarded families (a guarded one cannot have
// user-defined timestamps, so RocksDB would refuse them anyway).
Status GuardedDB::Put(const rocksdb::WriteOptions& o, rocksdb::ColumnFamilyHandle* cf,
                      const Slice& key, const Slice& ts, const Slice& value) {
  const Status s = UnguardedOnly(*impl_, cf);
  return s.ok() ? Counted(impl_.get(), 1, db_->Put(o, cf, key, ts, value)) : s;
}

Status GuardedDB::Merge(const rocksdb::WriteOptions& o, rocksdb::ColumnFamilyHandle* cf,
                        const Slice& key, const Slice& ts, const Slice& value) {
  const Status s = UnguardedOnly(*impl_, cf);
  return s.ok() ? Counted(impl_.get(), 1, db_->Merge(o, cf, key, ts, value)) : s;
}

Status GuardedDB::Delete(const rocksdb::WriteOptions& o, rocksdb::ColumnFamilyHandle* cf,
                         const Slice& key, const Slice& ts) {
  const Status s = UnguardedOnly(*impl_, cf);
  return s.ok() ? Counted(impl_.get(), 1, db_->Delete(o, cf, key, ts)) : s;
}

Status GuardedDB::SingleDelete(const rocksdb::WriteOptions& o, rocksdb::ColumnFamilyHandle* cf,
                               const Slice& key, const Slice& ts) {
  const Status s = UnguardedOnly(*impl_, cf);
  return s.ok() ? Counted(impl_.get(), 1, db_->SingleDelete(o, cf, key, ts)) : s;
}

Status GuardedDB::Write(const rocksdb::WriteOptions& o, rocksdb::WriteBatch* updates) {
  Collector collector(*impl_);
  Status s = updates->Iterate(&collector);
  if (!s.ok()) return s;
  return WriteMany(db_, impl_.get(), std::move(collector.ops), updates->Count(),
                   [&] { return db_->Write(o, updates); });
}

// Passed through: the keys it removes stay in the guard, stale.
Status GuardedDB::DeleteRange(const rocksdb::WriteOptions& o, rocksdb::ColumnFamilyHandle* cf,
                              const Slice& begin, const Slice& end) {
  return Counted(impl_.get(), 1, db_->DeleteRange(o, cf, begin, end));
}

}  // namespace sstfilter
