// GuardedDB's ingestion and import paths. An ingestion's keys enter the
// guard before the files become visible, under every stripe lock (the
// order of guarded_db_write.cc, for all the files' keys at once). An
// ingestion or import counts no sequence number, since the guard cannot
// tell the number RocksDB may assign it from a write made around the guard
// meanwhile: one that took a sequence number makes the next Open rebuild.
// Import into a guarded family is refused: its keys cannot be read first.

#include <sstfilter/guarded_db.h>

#include <rocksdb/options.h>
#include <rocksdb/sst_file_reader.h>

#include "guard/guard_impl.h"
#include "rocksdb/slice_hash.h"

namespace sstfilter {

using rocksdb::Status;

namespace {

// Inserts the keys an ingestion will make visible. Precondition: the gate
// is held exclusively. With `always`, every key gets a copy of its own,
// even one the DB holds now: a two-phase ingestion commits later, after
// a guarded delete may have erased the copy the key held.
Status GuardIngestedKeys(rocksdb::DB* db, GuardedDB::Impl* impl, rocksdb::ColumnFamilyHandle* cf,
                         const std::vector<std::string>& files, bool always = false) {
  GuardFamily* g = nullptr;
  const Status found = FindGuard(*impl, cf->GetID(), &g);
  if (!found.ok() || g == nullptr || !g->enabled()) return found;
  if (g->handle() == nullptr) return NoHandle(*g);
  const rocksdb::Options options = db->GetOptions(cf);
  for (const std::string& file : files) {
    rocksdb::SstFileReader reader(options);
    Status s = reader.Open(file);
    if (!s.ok()) return s;
    rocksdb::ReadOptions ro;
    ro.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(reader.NewIterator(ro));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const uint64_t hash = KeyHash(it->key());
      if (always || !(g->MayContainHash(hash) && DbHolds(db, g->handle(), it->key()))) {
        g->InsertHash(hash);
        impl->MaybeRepresize(db, g);
      }
    }
    if (!it->status().ok()) return it->status();
  }
  return Status::OK();
}

}  // namespace

// Ingestion holds every key's lock (the gate, exclusively): its keys become
// visible at once.
Status GuardedDB::IngestExternalFile(rocksdb::ColumnFamilyHandle* cf,
                                     const std::vector<std::string>& files,
                                     const rocksdb::IngestExternalFileOptions& options) {
  StripeGuard lock(&impl_->locks, {}, /*all=*/true);
  Status s = GuardIngestedKeys(db_, impl_.get(), cf, files);
  return s.ok() ? db_->IngestExternalFile(cf, files, options) : s;
}

Status GuardedDB::IngestExternalFiles(const std::vector<rocksdb::IngestExternalFileArg>& args) {
  StripeGuard lock(&impl_->locks, {}, /*all=*/true);
  for (const auto& arg : args) {
    Status s = GuardIngestedKeys(db_, impl_.get(), arg.column_family, arg.external_files);
    if (!s.ok()) return s;
  }
  return db_->IngestExternalFiles(args);
}

#if ROCKSDB_MAJOR > 11 || (ROCKSDB_MAJOR == 11 && ROCKSDB_MINOR >= 5)
Status GuardedDB::PrepareFileIngestion(const std::vector<rocksdb::IngestExternalFileArg>& args,
                                       std::unique_ptr<rocksdb::FileIngestionHandle>* handle) {
  StripeGuard lock(&impl_->locks, {}, /*all=*/true);
  impl_->BarRepresize();
  for (const auto& arg : args) {
    Status s = GuardIngestedKeys(db_, impl_.get(), arg.column_family, arg.external_files,
                                 /*always=*/true);
    if (!s.ok()) return s;
  }
  return db_->PrepareFileIngestion(args, handle);
}
#endif

namespace {
Status ImportRefused(const std::string& name) {
  return Status::NotSupported("sstfilter guard: import into guarded column family '" + name +
                              "' (import into an unguarded one, or ingest the files)");
}
}  // namespace

Status GuardedDB::CreateColumnFamilyWithImport(
    const rocksdb::ColumnFamilyOptions& options, const std::string& name,
    const rocksdb::ImportColumnFamilyOptions& import_options,
    const rocksdb::ExportImportFilesMetaData& metadata, rocksdb::ColumnFamilyHandle** handle) {
  if (impl_->Guards(name)) return ImportRefused(name);
  Status s = db_->CreateColumnFamilyWithImport(options, name, import_options, metadata, handle);
  if (s.ok()) impl_->Publish((*handle)->GetID(), nullptr);
  return s;
}

#if ROCKSDB_MAJOR >= 9
Status GuardedDB::CreateColumnFamilyWithImport(
    const rocksdb::ColumnFamilyOptions& options, const std::string& name,
    const rocksdb::ImportColumnFamilyOptions& import_options,
    const std::vector<const rocksdb::ExportImportFilesMetaData*>& metadatas,
    rocksdb::ColumnFamilyHandle** handle) {
  if (impl_->Guards(name)) return ImportRefused(name);
  Status s = db_->CreateColumnFamilyWithImport(options, name, import_options, metadatas, handle);
  if (s.ok()) impl_->Publish((*handle)->GetID(), nullptr);
  return s;
}
#endif

}  // namespace sstfilter
