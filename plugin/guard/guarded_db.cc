// GuardedDB: opening, closing and column families. Reads are in
// guarded_db_read.cc; writes are followed by the memtable hooks Open
// installs (guard_hook.h); ingestion is in guarded_db_ingest.cc, restart in
// guard_restart.cc, re-presize in guard_represize.cc.

#include <sstfilter/guarded_db.h>

#include <rocksdb/comparator.h>
#include <rocksdb/convenience.h>
#include <rocksdb/listener.h>

#include "guard/guard_impl.h"
#include "guard/guard_restart.h"
#include "rocksdb_adapter/db_open.h"

namespace sstfilter {
namespace {

// Ingestions change the DB without a memtable insert (Impl::OnIngested).
// The DB calls it only while open, and GuardedDB's Impl outlives that.
class IngestionListener : public rocksdb::EventListener {
 public:
  explicit IngestionListener(guard_internal::Impl* impl) : impl_(impl) {}
  const char* Name() const override { return "sstfilter.GuardIngestionListener"; }
  void OnExternalFileIngested(rocksdb::DB*,
                              const rocksdb::ExternalFileIngestionInfo& info) override {
    impl_->OnIngested(info.cf_name);
  }

 private:
  guard_internal::Impl* impl_;
};

rocksdb::Status Unguardable(const std::string& name) {
  return rocksdb::Status::NotSupported("sstfilter guard: column family '" + name +
                                       "' uses user-defined timestamps");
}

// A guarded family's options with the hook in their memtable factory.
rocksdb::Status Hooked(const rocksdb::ColumnFamilyOptions& in, std::shared_ptr<GuardHook> hook,
                       rocksdb::ColumnFamilyOptions* out) {
  *out = in;
  return NewGuardHookFactory(in.memtable_factory, std::move(hook), &out->memtable_factory);
}

}  // namespace

GuardedDB::GuardedDB(rocksdb::DB* db, std::unique_ptr<Impl> impl)
    : rocksdb::StackableDB(db), impl_(std::move(impl)) {}

GuardedDB::~GuardedDB() {
  if (!closed_) Close().PermitUncheckedError();
}

rocksdb::Status GuardedDB::Open(const rocksdb::Options& options, const GuardOptions& guard,
                                const std::string& path, std::unique_ptr<GuardedDB>* db) {
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(options)}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::Status s =
      Open(rocksdb::DBOptions(options), guard, path, families, &handles, db);
  if (s.ok()) {
    // The DB's own default handle serves instead (the guard uses it too).
    s = (*db)->db_->DestroyColumnFamilyHandle(handles[0]);
  }
  return s;
}

rocksdb::Status GuardedDB::Open(const rocksdb::DBOptions& options, const GuardOptions& guard,
                                const std::string& path,
                                const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
                                std::vector<rocksdb::ColumnFamilyHandle*>* handles,
                                std::unique_ptr<GuardedDB>* db) {
  return Open(options, guard, path, families, handles, db,
              [](const rocksdb::DBOptions& o, const std::string& p,
                 const std::vector<rocksdb::ColumnFamilyDescriptor>& f,
                 std::vector<rocksdb::ColumnFamilyHandle*>* h, rocksdb::DB** out) {
                std::unique_ptr<rocksdb::DB> base;
                rocksdb::Status s = OpenDB(o, p, f, h, &base);
                *out = base.release();
                return s;
              });
}

rocksdb::Status GuardedDB::Open(const rocksdb::DBOptions& options, const GuardOptions& guard,
                                const std::string& path,
                                const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
                                std::vector<rocksdb::ColumnFamilyHandle*>* handles,
                                std::unique_ptr<GuardedDB>* db, const BaseOpener& open_base) {
  if (!(guard.target_fpr > 0 && guard.target_fpr < 0.5)) {
    return rocksdb::Status::InvalidArgument("sstfilter guard: target_fpr must be in (0, 0.5)");
  }
  if (options.unordered_write) {
    // Writes become visible before their memtable insert, the hook's place.
    return rocksdb::Status::NotSupported("sstfilter guard: unordered_write");
  }
  auto impl = std::make_unique<Impl>(guard, path);
  std::vector<rocksdb::ColumnFamilyDescriptor> hooked = families;
  std::vector<std::shared_ptr<GuardHook>> hooks(families.size());
  for (size_t i = 0; i < families.size(); ++i) {
    if (!impl->Guards(families[i].name)) continue;
    if (families[i].options.comparator->timestamp_size() != 0) {
      return Unguardable(families[i].name);
    }
    hooks[i] = impl->NewHook();
    rocksdb::Status s = Hooked(families[i].options, hooks[i], &hooked[i].options);
    if (!s.ok()) return s;
  }
  rocksdb::DBOptions db_options = options;
  db_options.listeners.push_back(std::make_shared<IngestionListener>(impl.get()));
  rocksdb::DB* opened = nullptr;
  rocksdb::Status s = open_base(db_options, path, hooked, handles, &opened);
  std::unique_ptr<rocksdb::DB> base(opened);
  if (!s.ok()) return s;
  if (base == nullptr) return rocksdb::Status::InvalidArgument("sstfilter guard: no base DB");
  // A read-only or secondary instance (a BaseOpener's) takes no writes, and
  // answers SyncWAL so. A secondary's catch-up installs the primary's SSTs,
  // whose keys no hook saw: refused, as is read-only for simplicity.
  if (!db_options.allow_mmap_writes && base->SyncWAL().IsNotSupported()) {
    for (rocksdb::ColumnFamilyHandle* h : *handles) base->DestroyColumnFamilyHandle(h);
    handles->clear();
    return rocksdb::Status::NotSupported(
        "sstfilter guard: a read-only or secondary DB (the guard needs a DB opened for writes)");
  }
  // The guard's own scans read the base as its users do (a TransactionDB's
  // reads know which of its memtable entries are committed).
  rocksdb::DB* raw = base.get();
  impl->set_db(raw);
  // A base that stands over another DB (a TransactionDB, an optimistic
  // one, any StackableDB; RTTI is off in RocksDB's own builds, so they are
  // told apart from DBImpl only by GetRootDB()) may show its memtable
  // entries late: WRITE_PREPARED and WRITE_UNPREPARED put a transaction's
  // keys there before it commits, and a read through the TransactionDB
  // shows them only at the commit. Recovery replays such keys before the
  // hooks are attached, so a rebuild also scans the root DB, which shows
  // every entry; and a re-presize's snapshot scan would miss a key
  // prepared before it and committed after, so none runs.
  if (raw->GetRootDB() != raw) {
    impl->set_scan_root(true);
    impl->BarRepresize("a DB under the guard that stands over another (a TransactionDB's "
                       "prepared keys are in the memtable before a scan can see them)");
  }
  std::unique_ptr<GuardedDB> out(new GuardedDB(base.release(), std::move(impl)));
  // Nothing can write until Open returns: the guards start level with the
  // DB, and their hooks follow it from here.
  s = LoadOrRebuildGuards(raw, out->impl_.get(), *handles);
  if (!s.ok()) {
    for (rocksdb::ColumnFamilyHandle* h : *handles) out->db_->DestroyColumnFamilyHandle(h);
    handles->clear();
    out->closed_ = true;  // nothing to save
    return s;
  }
  for (size_t i = 0; i < handles->size(); ++i) {
    GuardFamily* g = out->impl_->Lookup((*handles)[i]->GetID());
    if (g != nullptr && hooks[i] != nullptr) out->impl_->AttachHook(hooks[i].get(), g);
  }
  *db = std::move(out);
  return rocksdb::Status::OK();
}

rocksdb::Status GuardedDB::Close() {
  if (closed_) return rocksdb::Status::OK();
  closed_ = true;
  impl_->StopRepresize(/*forever=*/true);
  // RocksDB's own shutdown, ahead of the save: the flush of unlogged
  // (disableWAL) writes that a plain close makes, unless
  // avoid_flush_during_shutdown, then the end of all background work. From
  // here no flush or compaction can change the live SSTs, so the list
  // SaveGuards writes is the one the next Open finds. That flush waits for
  // RocksDB's background threads, so a pause made through this object is
  // lifted first; RocksDB alone would wait forever for it.
  for (int n = user_pauses_.exchange(0); n > 0; --n) {
    db_->ContinueBackgroundWork().PermitUncheckedError();
  }
  rocksdb::CancelAllBackgroundWork(db_, /*wait=*/true);
  const rocksdb::Status saved = SaveGuards(db_, impl_.get());
  const rocksdb::Status closed = db_->Close();
  impl_->DetachHooks();
  return saved.ok() ? closed : saved;
}

rocksdb::Status GuardedDB::PauseBackgroundWork() {
  const rocksdb::Status s = db_->PauseBackgroundWork();
  if (s.ok()) ++user_pauses_;
  return s;
}

rocksdb::Status GuardedDB::ContinueBackgroundWork() {
  const rocksdb::Status s = db_->ContinueBackgroundWork();
  if (s.ok()) {
    int n = user_pauses_.load();
    while (n > 0 && !user_pauses_.compare_exchange_weak(n, n - 1)) {
    }
  }
  return s;
}

uint64_t GuardedDB::RuledOut() const { return impl_->RuledOut(); }

GuardStats GuardedDB::GetGuardStats() const {
  GuardStats s = impl_->open_stats;
  s.ruled_out = impl_->RuledOut();
  s.unprobed_gets = impl_->Unprobed();
  for (GuardFamily* g : impl_->Families()) {
    s.keys += g->Size();
    s.memory_bytes += g->MemoryBytes();
    s.guard_errors += g->errors();
    s.disabled_families += g->enabled() ? 0 : 1;
  }
  s.memory_bytes += impl_->represize_bytes();
  s.represize_peak_bytes = impl_->represize_peak_bytes();
  s.represizes = impl_->represizes();
  s.represize_seconds = impl_->represize_seconds();
  return s;
}


// ---- column families -------------------------------------------------------

rocksdb::Status GuardedDB::CreateColumnFamily(const rocksdb::ColumnFamilyOptions& options,
                                              const std::string& name,
                                              rocksdb::ColumnFamilyHandle** handle) {
  if (!impl_->Guards(name)) {
    rocksdb::Status s = db_->CreateColumnFamily(options, name, handle);
    if (s.ok()) impl_->Publish((*handle)->GetID(), nullptr);
    return s;
  }
  if (options.comparator->timestamp_size() != 0) return Unguardable(name);
  std::shared_ptr<GuardHook> hook = impl_->NewHook();
  rocksdb::ColumnFamilyOptions hooked;
  rocksdb::Status s = Hooked(options, hook, &hooked);
  if (s.ok()) s = db_->CreateColumnFamily(hooked, name, handle);
  if (!s.ok()) return s;
  // Nobody else holds the handle yet, so the empty guard is complete.
  std::unique_ptr<GuardFamily> guard;
  s = NewGuardFamily(impl_->db(), impl_.get(), *handle, /*scan=*/false, &guard);
  if (!s.ok()) return s;
  GuardFamily* g = guard.get();
  impl_->Publish((*handle)->GetID(), std::move(guard));
  impl_->AttachHook(hook.get(), g);
  return s;
}

rocksdb::Status GuardedDB::CreateColumnFamilies(
    const rocksdb::ColumnFamilyOptions& options, const std::vector<std::string>& names,
    std::vector<rocksdb::ColumnFamilyHandle*>* handles) {
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const auto& name : names) families.emplace_back(name, options);
  return CreateColumnFamilies(families, handles);
}

rocksdb::Status GuardedDB::CreateColumnFamilies(
    const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
    std::vector<rocksdb::ColumnFamilyHandle*>* handles) {
  handles->clear();
  for (const auto& f : families) {
    rocksdb::ColumnFamilyHandle* h = nullptr;
    rocksdb::Status s = CreateColumnFamily(f.options, f.name, &h);
    if (!s.ok()) return s;
    handles->push_back(h);
  }
  return rocksdb::Status::OK();
}

rocksdb::Status GuardedDB::DropColumnFamily(rocksdb::ColumnFamilyHandle* cf) {
  rocksdb::Status s = db_->DropColumnFamily(cf);
  if (s.ok()) {
    if (GuardFamily* g = impl_->Lookup(cf->GetID())) g->MarkDropped();
  }
  return s;
}

rocksdb::Status GuardedDB::DropColumnFamilies(
    const std::vector<rocksdb::ColumnFamilyHandle*>& cfs) {
  for (rocksdb::ColumnFamilyHandle* cf : cfs) {
    rocksdb::Status s = DropColumnFamily(cf);
    if (!s.ok()) return s;
  }
  return rocksdb::Status::OK();
}

rocksdb::Status GuardedDB::DestroyColumnFamilyHandle(rocksdb::ColumnFamilyHandle* cf) {
  if (cf != nullptr) {
    GuardFamily* g = impl_->Lookup(cf->GetID());
    if (g != nullptr && g->handle() == cf) {
      g->ClearHandle();
      // A re-presize that read the handle before it was cleared ends first.
      impl_->StopRepresize();
    }
  }
  return db_->DestroyColumnFamilyHandle(cf);
}

}  // namespace sstfilter
