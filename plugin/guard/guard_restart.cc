#include "guard/guard_restart.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include <rocksdb/comparator.h>
#include <rocksdb/env.h>
#include <rocksdb/metadata.h>
#include <rocksdb/table_properties.h>

#include "guard/guard_file.h"

namespace sstfilter {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Set by SstFileWriter on every file it writes, kept by ingestion.
constexpr char kExternalFileProperty[] = "rocksdb.external_sst_file.version";

uint64_t FileNumber(const std::string& name) {
  const size_t slash = name.find_last_of('/');
  return std::strtoull(name.c_str() + (slash == std::string::npos ? 0 : slash + 1), nullptr, 10);
}

std::vector<uint64_t> LiveSstFiles(rocksdb::DB* db) {
  std::vector<rocksdb::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  std::vector<uint64_t> out;
  for (const auto& f : files) out.push_back(FileNumber(f.name));
  std::sort(out.begin(), out.end());
  return out;
}

// Into *out, the SSTs of `handles`' families, live now but not in `known`,
// that this session did not write (ingested files: SstFileWriter's or
// another DB's; or the output of a session without the guard), with the
// reason for the first in *why.
rocksdb::Status ForeignSsts(rocksdb::DB* db, const std::set<uint64_t>& known,
                            const std::vector<rocksdb::ColumnFamilyHandle*>& handles,
                            std::vector<uint64_t>* out, std::string* why) {
  std::string session;
  rocksdb::Status s = db->GetDbSessionId(session);
  if (!s.ok()) return s;
  for (rocksdb::ColumnFamilyHandle* h : handles) {
    rocksdb::TablePropertiesCollection props;
    s = db->GetPropertiesOfAllTables(h, &props);
    if (!s.ok()) return s;
    for (const auto& [name, p] : props) {
      if (known.count(FileNumber(name)) != 0) continue;
      const bool external = p->user_collected_properties.count(kExternalFileProperty) != 0;
      if (!external && p->db_session_id == session) continue;
      if (out->empty()) {
        *why = external ? "an SST was ingested without the guard"
                        : "an SST written by another session (ingested, or compacted without "
                          "the guard) is not covered by the saved guard";
      }
      out->push_back(FileNumber(name));
    }
  }
  return rocksdb::Status::OK();
}

// Why the saved guard does not describe the DB, or "" if it does.
std::string Mismatch(rocksdb::DB* db, const GuardFileContents& saved,
                     const std::vector<rocksdb::ColumnFamilyHandle*>& handles) {
  std::string identity;
  if (!db->GetDbIdentity(identity).ok() || identity != saved.db_identity) {
    return "saved for another DB";
  }
  if (db->GetLatestSequenceNumber() != saved.sequence) {
    return "the DB was written without the guard (sequence " + std::to_string(saved.sequence) +
           " saved, " + std::to_string(db->GetLatestSequenceNumber()) + " now)";
  }
  // An ingestion that needs no sequence number leaves it unchanged: SstFileWriter's
  // files, and with allow_db_generated_files (9.x) another DB's. So every SST
  // that was not live at save time must have been written by this session:
  // the flush of the writes Open recovered (which the sequence number
  // covers) or a compaction since Open, which holds only keys the DB had.
  // Any other new SST arrived around the guard; so, conservatively, does
  // one compacted by a session without the guard.
  const std::set<uint64_t> before(saved.sst_files.begin(), saved.sst_files.end());
  bool any_new = false;
  for (uint64_t f : LiveSstFiles(db)) any_new = any_new || before.count(f) == 0;
  if (!any_new) return "";
  std::vector<uint64_t> foreign;
  std::string why;
  if (!ForeignSsts(db, before, handles, &foreign, &why).ok()) return "cannot read table properties";
  return foreign.empty() ? "" : why;
}

// The handle the guard keeps for its own reads: for the default family the
// DB's, which lives as long as the DB (the caller may destroy theirs).
rocksdb::ColumnFamilyHandle* OwnHandle(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* h) {
  return h->GetID() == db->DefaultColumnFamily()->GetID() ? db->DefaultColumnFamily() : h;
}

}  // namespace

rocksdb::Status NewGuardFamily(rocksdb::DB* db, guard_internal::Impl* impl,
                               rocksdb::ColumnFamilyHandle* handle, bool scan,
                               std::unique_ptr<GuardFamily>* out) {
  // A rebuild first collects the keys' hashes (8 bytes a key, for the
  // duration of the scan) so that the filter is sized from the exact count:
  // rocksdb.estimate-num-keys is often 10-20% off, and every key of
  // over-provisioning costs bits/key until the DB grows into it.
  std::vector<uint64_t> hashes;
  const auto start = Clock::now();
  if (scan) {
    auto last = start;
    rocksdb::ReadOptions ro;
    ro.fill_cache = false;  // a scan would evict the working set
    ro.total_order_seek = true;
    ro.readahead_size = 2 << 20;
    // Over a base such as a TransactionDB, the root DB too (every entry,
    // prepared ones included: GuardedDB::Open).
    std::vector<rocksdb::DB*> sources = {db};
    if (impl->scan_root() && db->GetRootDB() != db) sources.push_back(db->GetRootDB());
    for (rocksdb::DB* source : sources) {
      std::unique_ptr<rocksdb::Iterator> it(source->NewIterator(ro, handle));
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        const rocksdb::Slice k = it->key();
        hashes.push_back(KeyHash(k.data(), k.size()));
        if ((hashes.size() & 0xffff) == 0 && impl->options.report_progress &&
            Since(last) >= 1.0) {
          last = Clock::now();
          std::fprintf(stderr, "sstfilter guard: rebuilding [%s]: %zu keys, %.0f keys/s\n",
                       handle->GetName().c_str(), hashes.size(), hashes.size() / Since(start));
        }
      }
      if (!it->status().ok()) return it->status();
    }
    if (sources.size() > 1) {
      std::sort(hashes.begin(), hashes.end());
      hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
    }
  }
  const uint64_t keys = hashes.size();
  std::unique_ptr<DynamicCuckooFilter> filter;
  // No headroom: the first growth step widens the buckets (NewFilter).
  rocksdb::Status s = impl->NewFilter(keys, &filter);
  if (!s.ok()) return s;
  auto guard = std::make_unique<GuardFamily>(handle->GetID(), handle->GetName(),
                                             std::move(filter), OwnHandle(db, handle));
  guard->AddBatch(hashes.data(), hashes.size());
  guard->SetRepresizeAt(impl->RepresizeAt(keys));
  if (scan) {
    const double seconds = Since(start);
    if (impl->options.report_progress) {
      std::fprintf(stderr, "sstfilter guard: rebuilt [%s]: %llu keys in %.2f s (%.0f keys/s)\n",
                   handle->GetName().c_str(), static_cast<unsigned long long>(keys), seconds,
                   seconds > 0 ? keys / seconds : 0.0);
    }
    impl->open_stats.rebuilt = true;
    impl->open_stats.rebuilt_keys += keys;
    impl->open_stats.rebuild_seconds += seconds;
  }
  *out = std::move(guard);
  return rocksdb::Status::OK();
}

rocksdb::Status LoadOrRebuildGuards(rocksdb::DB* db, guard_internal::Impl* impl,
                                    const std::vector<rocksdb::ColumnFamilyHandle*>& handles) {
  rocksdb::Env* env = db->GetEnv();
  std::string bytes, why;
  GuardFileContents saved;
  bool usable = false;
  const rocksdb::Status read = rocksdb::ReadFileToString(env, impl->guard_file, &bytes);
  if (!read.ok()) {
    why = "no saved guard";
  } else if (DecodeGuardFile(bytes, &saved, &why)) {
    why = Mismatch(db, saved, handles);
    usable = why.empty();
  }
  if (read.ok()) {
    // Consumed: from here on only the next Close describes the DB.
    env->DeleteFile(impl->guard_file).PermitUncheckedError();
  }
  for (rocksdb::ColumnFamilyHandle* h : handles) {
    if (!impl->Guards(h->GetName())) {
      impl->Publish(h->GetID(), nullptr);
      continue;
    }
    if (h->GetComparator()->timestamp_size() != 0) {
      return rocksdb::Status::NotSupported("sstfilter guard: column family '" + h->GetName() +
                                           "' uses user-defined timestamps");
    }
    std::unique_ptr<GuardFamily> guard;
    const GuardFileContents::Family* f = nullptr;
    for (const auto& candidate : saved.families) {
      if (usable && candidate.id == h->GetID() && candidate.name == h->GetName()) f = &candidate;
    }
    std::unique_ptr<DynamicCuckooFilter> filter;
    // A filter of format version 1 to 3 (an older build's guard) loads
    // read-only: rebuilt instead.
    const bool loaded = f != nullptr &&
                        DynamicCuckooFilter::Load(f->filter, &filter) == DynamicStatus::kOk;
    if (loaded && filter->options().format_version >= 1 &&
        filter->options().format_version <= 3) {
      filter.reset();
      why = "the saved guard of column family '" + h->GetName() +
            "' is an older, read-only format";
    }
    if (filter != nullptr) {
      // Built for its initial capacity (at an Open's rebuild or the last
      // re-presize), however far it grew before it was saved.
      const uint64_t built_for = filter->options().initial_capacity;
      guard = std::make_unique<GuardFamily>(h->GetID(), h->GetName(), std::move(filter),
                                            OwnHandle(db, h));
      guard->SetRepresizeAt(impl->RepresizeAt(built_for));
      impl->open_stats.loaded = true;
    } else {
      if (usable && !loaded) {
        why = "no valid saved guard for column family '" + h->GetName() + "'";
      }
      if (impl->options.report_progress) {
        std::fprintf(stderr, "sstfilter guard: rebuilding [%s]: %s\n", h->GetName().c_str(),
                     why.c_str());
      }
      impl->open_stats.rebuild_reason = why;
      rocksdb::Status s = NewGuardFamily(db, impl, h, /*scan=*/true, &guard);
      if (!s.ok()) return s;
    }
    impl->Publish(h->GetID(), std::move(guard));
  }
  impl->open_sst_files = LiveSstFiles(db);
  return rocksdb::Status::OK();
}

rocksdb::Status SaveGuards(rocksdb::DB* db, guard_internal::Impl* impl) {
  GuardFileContents c;
  // The hooks followed every write of the guarded families. A session that
  // ingested saves no guard: the next Open rebuilds.
  if (impl->unfollowed()) {
    if (impl->options.report_progress) {
      std::fprintf(stderr, "sstfilter guard: not saved: a file was ingested in this session; "
                           "the next Open rebuilds\n");
    }
    return rocksdb::Status::OK();
  }
  c.sequence = db->GetLatestSequenceNumber();
  rocksdb::Status s = db->GetDbIdentity(c.db_identity);
  if (!s.ok()) return s;
  // The live SSTs, less those this session did not write that became live
  // since Open: ingested, through this object or around it, the guard
  // cannot tell which, so the next Open sees them as new and rebuilds.
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  for (GuardFamily* g : impl->Families()) {
    if (!g->dropped() && g->handle() != nullptr) handles.push_back(g->handle());
  }
  std::vector<uint64_t> foreign;
  std::string why;
  s = ForeignSsts(db,
                  std::set<uint64_t>(impl->open_sst_files.begin(), impl->open_sst_files.end()),
                  handles, &foreign, &why);
  if (!s.ok()) return s;  // nothing saved: the next Open rebuilds
  for (uint64_t f : LiveSstFiles(db)) {
    if (std::find(foreign.begin(), foreign.end(), f) == foreign.end()) c.sst_files.push_back(f);
  }
  for (GuardFamily* g : impl->Families()) {
    if (g->dropped()) continue;
    GuardFileContents::Family f;
    f.id = g->id();
    f.name = g->name();
    if (g->Save(&f.filter)) c.families.push_back(std::move(f));
  }
  std::string bytes;
  EncodeGuardFile(c, &bytes);
  rocksdb::Env* env = db->GetEnv();
  const std::string tmp = impl->guard_file + ".tmp";
  s = rocksdb::WriteStringToFile(env, bytes, tmp, /*should_sync=*/true);
  if (s.ok()) s = env->RenameFile(tmp, impl->guard_file);
  return s;
}

}  // namespace sstfilter
