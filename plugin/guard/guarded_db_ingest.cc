// GuardedDB's ingestion and import paths. An ingestion's keys enter the
// guard before the files become visible; it holds the ingest gate shared
// meanwhile, so that a re-presize's snapshot is taken either before its
// first key or after its files are visible (guard_represize.cc). A session
// that ingested saves no guard at Close: the next Open rebuilds (RocksDB
// may give the files a sequence number the guard cannot tell from a write
// it did not see). Import into a guarded family is refused: its keys
// cannot be read first.

#include <sstfilter/guarded_db.h>

#include <shared_mutex>

#include <rocksdb/options.h>
#include <rocksdb/sst_file_reader.h>

#include "guard/guard_impl.h"
#include "rocksdb_adapter/slice_hash.h"

namespace sstfilter {

using rocksdb::Status;

namespace {

// Adds the keys an ingestion will make visible. Precondition: the ingest
// gate is held.
Status GuardIngestedKeys(rocksdb::DB* db, guard_internal::Impl* impl, rocksdb::ColumnFamilyHandle* cf,
                         const std::vector<std::string>& files) {
  GuardFamily* g = impl->Lookup(cf->GetID());
  if (g == nullptr || !g->enabled()) return Status::OK();
  const rocksdb::Options options = db->GetOptions(cf);
  for (const std::string& file : files) {
    rocksdb::SstFileReader reader(options);
    Status s = reader.Open(file);
    if (!s.ok()) return s;
    rocksdb::ReadOptions ro;
    ro.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(reader.NewIterator(ro));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (g->Add(KeyHash(it->key()), /*seq=*/0)) impl->MaybeRepresize(impl->db(), g);
    }
    if (!it->status().ok()) return it->status();
  }
  return Status::OK();
}

}  // namespace

Status GuardedDB::IngestExternalFile(rocksdb::ColumnFamilyHandle* cf,
                                     const std::vector<std::string>& files,
                                     const rocksdb::IngestExternalFileOptions& options) {
  std::shared_lock<std::shared_mutex> gate(impl_->ingest_gate);
  Impl::IngestScope own;
  Status s = GuardIngestedKeys(db_, impl_.get(), cf, files);
  return s.ok() ? db_->IngestExternalFile(cf, files, options) : s;
}

Status GuardedDB::IngestExternalFiles(const std::vector<rocksdb::IngestExternalFileArg>& args) {
  std::shared_lock<std::shared_mutex> gate(impl_->ingest_gate);
  Impl::IngestScope own;
  for (const auto& arg : args) {
    Status s = GuardIngestedKeys(db_, impl_.get(), arg.column_family, arg.external_files);
    if (!s.ok()) return s;
  }
  return db_->IngestExternalFiles(args);
}

#if ROCKSDB_MAJOR > 11 || (ROCKSDB_MAJOR == 11 && ROCKSDB_MINOR >= 5)
Status GuardedDB::PrepareFileIngestion(const std::vector<rocksdb::IngestExternalFileArg>& args,
                                       std::unique_ptr<rocksdb::FileIngestionHandle>* handle) {
  std::shared_lock<std::shared_mutex> gate(impl_->ingest_gate);
  impl_->BarRepresize("a two-phase ingestion was prepared in this session");
  for (const auto& arg : args) {
    Status s = GuardIngestedKeys(db_, impl_.get(), arg.column_family, arg.external_files);
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
