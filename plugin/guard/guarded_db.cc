// GuardedDB: opening, closing, reads and column families. Writes are
// followed by the memtable hooks Open installs (guard_hook.h); ingestion is
// in guarded_db_ingest.cc, restart in guard_restart.cc, re-presize in
// guard_represize.cc.

#include <sstfilter/guarded_db.h>

#include <algorithm>

#include <rocksdb/comparator.h>
#include <rocksdb/listener.h>

#include "guard/guard_impl.h"
#include "guard/guard_restart.h"
#include "rocksdb/db_open.h"
#include "rocksdb/slice_hash.h"

namespace sstfilter {
namespace {

// The guard describes the latest state only: a snapshot or timestamp read
// may ask for a key deleted since, so those go to the DB.
bool Bypass(const rocksdb::ReadOptions& ro) {
  return ro.snapshot != nullptr || ro.timestamp != nullptr;
}

// Ingestions change the DB without a memtable insert (Impl::OnIngested).
// The DB calls it only while open, and GuardedDB's Impl outlives that.
class IngestionListener : public rocksdb::EventListener {
 public:
  explicit IngestionListener(GuardedDB::Impl* impl) : impl_(impl) {}
  const char* Name() const override { return "sstfilter.GuardIngestionListener"; }
  void OnExternalFileIngested(rocksdb::DB*,
                              const rocksdb::ExternalFileIngestionInfo& info) override {
    impl_->OnIngested(info.cf_name);
  }

 private:
  GuardedDB::Impl* impl_;
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
  // No flush or compaction may finish between the saved list of live SSTs
  // and the close: its output, written by this session, would look to the
  // next Open like an SST from elsewhere, and cost a rebuild. (Close waits
  // for that work anyway; a failure here costs at most that rebuild.)
  impl_->StopRepresize(/*forever=*/true);
  db_->PauseBackgroundWork().PermitUncheckedError();
  const rocksdb::Status saved = SaveGuards(db_, impl_.get());
  const rocksdb::Status closed = db_->Close();
  impl_->DetachHooks();
  return saved.ok() ? closed : saved;
}

uint64_t GuardedDB::RuledOut() const { return impl_->RuledOut(); }

GuardStats GuardedDB::GetGuardStats() const {
  GuardStats s = impl_->open_stats;
  s.ruled_out = impl_->RuledOut();
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


// ---- reads ---------------------------------------------------------------

namespace {

// True if the guard proves the key absent.
bool IsRuledOut(const GuardedDB::Impl& impl, rocksdb::ColumnFamilyHandle* cf,
              const rocksdb::Slice& key) {
  const GuardFamily* g = impl.Lookup(cf->GetID());
  return g != nullptr && !g->MayContainHash(KeyHash(key));
}

}  // namespace

#if ROCKSDB_MAJOR >= 9
rocksdb::Status GuardedDB::Get(const rocksdb::ReadOptions& options,
                               rocksdb::ColumnFamilyHandle* cf, const rocksdb::Slice& key,
                               rocksdb::PinnableSlice* value, std::string* timestamp) {
  if (timestamp == nullptr && !Bypass(options) && IsRuledOut(*impl_, cf, key)) {
    impl_->CountRuledOut(1);
    value->Reset();
    return rocksdb::Status::NotFound();
  }
  return db_->Get(options, cf, key, value, timestamp);
}
#else
rocksdb::Status GuardedDB::Get(const rocksdb::ReadOptions& options,
                               rocksdb::ColumnFamilyHandle* cf, const rocksdb::Slice& key,
                               rocksdb::PinnableSlice* value) {
  if (!Bypass(options) && IsRuledOut(*impl_, cf, key)) {
    impl_->CountRuledOut(1);
    value->Reset();
    return rocksdb::Status::NotFound();
  }
  return db_->Get(options, cf, key, value);
}

bool GuardedDB::KeyMayExist(const rocksdb::ReadOptions& options,
                            rocksdb::ColumnFamilyHandle* cf, const rocksdb::Slice& key,
                            std::string* value, std::string* timestamp, bool* value_found) {
  if (timestamp == nullptr && !Bypass(options) && IsRuledOut(*impl_, cf, key)) {
    impl_->CountRuledOut(1);
    if (value_found != nullptr) *value_found = false;
    return false;
  }
  return db_->KeyMayExist(options, cf, key, value, timestamp, value_found);
}
#endif

bool GuardedDB::KeyMayExist(const rocksdb::ReadOptions& options,
                            rocksdb::ColumnFamilyHandle* cf, const rocksdb::Slice& key,
                            std::string* value, bool* value_found) {
  if (!Bypass(options) && IsRuledOut(*impl_, cf, key)) {
    impl_->CountRuledOut(1);
    if (value_found != nullptr) *value_found = false;
    return false;
  }
  return db_->KeyMayExist(options, cf, key, value, value_found);
}

namespace {

// Batched reads: the keys the guard rules out get NotFound here, the rest
// go to the DB in one call (in their original order, so sorted input stays
// sorted). `call` does that DB call on compacted arrays.
template <typename Call>
void SplitMultiGet(const GuardedDB::Impl& impl, size_t n, rocksdb::ColumnFamilyHandle* const* cfs,
                   bool one_cf, const rocksdb::Slice* keys, rocksdb::PinnableSlice* values,
                   std::string* timestamps, rocksdb::Status* statuses, uint64_t* ruled_out,
                   const Call& call) {
  // Ruled-out keys are answered in place; kept holds the others (allocated
  // only if there are any).
  std::vector<size_t> kept;
  auto answer = [&](size_t i, bool may) {
    if (may) {
      kept.push_back(i);
    } else {
      values[i].Reset();
      statuses[i] = rocksdb::Status::NotFound();
    }
  };
  bool same_cf = true;
  for (size_t i = 1; i < n && !one_cf && same_cf; ++i) same_cf = cfs[i] == cfs[0];
  const GuardFamily* g = n > 0 && (one_cf || same_cf) ? impl.Lookup(cfs[0]->GetID()) : nullptr;
  if (g != nullptr) {
    // One family: batched probes, buckets prefetched.
    constexpr size_t kChunk = 64;
    bool may[kChunk];
    for (size_t start = 0; start < n; start += kChunk) {
      const size_t m = std::min(kChunk, n - start);
      g->MayContainBatch(keys + start, m, may);
      for (size_t j = 0; j < m; ++j) answer(start + j, may[j]);
    }
  } else {
    for (size_t i = 0; i < n; ++i) answer(i, !IsRuledOut(impl, cfs[one_cf ? 0 : i], keys[i]));
  }
  *ruled_out = n - kept.size();
  if (kept.size() == n) {
    call(n, cfs, keys, values, timestamps, statuses);
    return;
  }
  if (kept.empty()) return;
  const size_t m = kept.size();
  std::vector<rocksdb::ColumnFamilyHandle*> cf2(one_cf ? 1 : m, cfs[0]);
  std::vector<rocksdb::Slice> k2(m);
  std::vector<rocksdb::PinnableSlice> v2(m);
  std::vector<rocksdb::Status> s2(m);
  std::vector<std::string> ts2(timestamps != nullptr ? m : 0);
  for (size_t j = 0; j < m; ++j) {
    if (!one_cf) cf2[j] = cfs[kept[j]];
    k2[j] = keys[kept[j]];
  }
  call(m, cf2.data(), k2.data(), v2.data(), timestamps != nullptr ? ts2.data() : nullptr,
       s2.data());
  for (size_t j = 0; j < m; ++j) {
    values[kept[j]] = std::move(v2[j]);
    statuses[kept[j]] = s2[j];
    if (timestamps != nullptr) timestamps[kept[j]] = std::move(ts2[j]);
  }
}

}  // namespace

#if ROCKSDB_MAJOR >= 9
void GuardedDB::MultiGet(const rocksdb::ReadOptions& options, size_t num_keys,
                         rocksdb::ColumnFamilyHandle** cfs, const rocksdb::Slice* keys,
                         rocksdb::PinnableSlice* values, std::string* timestamps,
                         rocksdb::Status* statuses, bool sorted_input) {
  if (timestamps != nullptr || Bypass(options)) {
    return db_->MultiGet(options, num_keys, cfs, keys, values, timestamps, statuses,
                         sorted_input);
  }
  uint64_t ruled_out = 0;
  SplitMultiGet(*impl_, num_keys, cfs, false, keys, values, nullptr, statuses, &ruled_out,
                [&](size_t n, rocksdb::ColumnFamilyHandle* const* c, const rocksdb::Slice* k,
                    rocksdb::PinnableSlice* v, std::string* ts, rocksdb::Status* st) {
                  db_->MultiGet(options, n, const_cast<rocksdb::ColumnFamilyHandle**>(c), k, v,
                                ts, st, sorted_input);
                });
  if (ruled_out != 0) impl_->CountRuledOut(ruled_out);
}
#else
void GuardedDB::MultiGet(const rocksdb::ReadOptions& options, rocksdb::ColumnFamilyHandle* cf,
                         size_t num_keys, const rocksdb::Slice* keys,
                         rocksdb::PinnableSlice* values, rocksdb::Status* statuses,
                         bool sorted_input) {
  if (Bypass(options)) {
    return db_->MultiGet(options, cf, num_keys, keys, values, statuses, sorted_input);
  }
  uint64_t ruled_out = 0;
  SplitMultiGet(*impl_, num_keys, &cf, true, keys, values, nullptr, statuses, &ruled_out,
                [&](size_t n, rocksdb::ColumnFamilyHandle* const* c, const rocksdb::Slice* k,
                    rocksdb::PinnableSlice* v, std::string*, rocksdb::Status* st) {
                  db_->MultiGet(options, c[0], n, k, v, st, sorted_input);
                });
  if (ruled_out != 0) impl_->CountRuledOut(ruled_out);
}

void GuardedDB::MultiGet(const rocksdb::ReadOptions& options, size_t num_keys,
                         rocksdb::ColumnFamilyHandle** cfs, const rocksdb::Slice* keys,
                         rocksdb::PinnableSlice* values, rocksdb::Status* statuses,
                         bool sorted_input) {
  if (Bypass(options)) {
    return db_->MultiGet(options, num_keys, cfs, keys, values, statuses, sorted_input);
  }
  uint64_t ruled_out = 0;
  SplitMultiGet(*impl_, num_keys, cfs, false, keys, values, nullptr, statuses, &ruled_out,
                [&](size_t n, rocksdb::ColumnFamilyHandle* const* c, const rocksdb::Slice* k,
                    rocksdb::PinnableSlice* v, std::string*, rocksdb::Status* st) {
                  db_->MultiGet(options, n, const_cast<rocksdb::ColumnFamilyHandle**>(c), k, v,
                                st, sorted_input);
                });
  if (ruled_out != 0) impl_->CountRuledOut(ruled_out);
}

std::vector<rocksdb::Status> GuardedDB::MultiGet(
    const rocksdb::ReadOptions& options, const std::vector<rocksdb::ColumnFamilyHandle*>& cfs,
    const std::vector<rocksdb::Slice>& keys, std::vector<std::string>* values) {
  if (Bypass(options)) return db_->MultiGet(options, cfs, keys, values);
  const size_t n = keys.size();
  std::vector<rocksdb::ColumnFamilyHandle*> cf2;
  std::vector<rocksdb::Slice> k2;
  std::vector<size_t> kept;
  for (size_t i = 0; i < n; ++i) {
    if (!IsRuledOut(*impl_, cfs[i], keys[i])) {
      kept.push_back(i);
      cf2.push_back(cfs[i]);
      k2.push_back(keys[i]);
    }
  }
  if (kept.size() == n) return db_->MultiGet(options, cfs, keys, values);
  impl_->CountRuledOut(n - kept.size());
  std::vector<std::string> v2;
  std::vector<rocksdb::Status> s2;
  if (!kept.empty()) s2 = db_->MultiGet(options, cf2, k2, &v2);
  std::vector<rocksdb::Status> statuses(n, rocksdb::Status::NotFound());
  values->assign(n, std::string());
  for (size_t j = 0; j < kept.size(); ++j) {
    statuses[kept[j]] = s2[j];
    (*values)[kept[j]] = std::move(v2[j]);
  }
  return statuses;
}
#endif

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
