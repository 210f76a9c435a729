#include <sstfilter/migrate.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>
#include <vector>

#include <rocksdb/env.h>
#include <rocksdb/metadata.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>

#include "rocksdb_adapter/builtin_family.h"
#include "rocksdb_adapter/policy.h"

namespace sstfilter {
namespace {

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// An SST of the column family that needs rewriting.
struct Candidate {
  std::string file;  // as in SstFileMetaData::name, "/000012.sst"
  int level = 0;
  uint64_t size = 0;
  std::string policy;  // filter policy name in its properties
};

// The SSTs whose filter `configured` cannot read (or, with
// rewrite_other_kinds, that another policy wrote; with rewrite_all, every
// one numbered up to `last_file`), lowest level first.
rocksdb::Status FindCandidates(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf,
                               const rocksdb::FilterPolicy& configured,
                               const MigrateOptions& options, uint64_t last_file,
                               std::vector<Candidate>* out) {
  out->clear();
  rocksdb::TablePropertiesCollection props;
  rocksdb::Status s = db->GetPropertiesOfAllTables(cf, &props);
  if (!s.ok()) return s;
  // Properties are keyed by full path; metadata gives path and name apart.
  std::map<std::string, std::string> policy_of;  // "/000012.sst" -> name
  for (const auto& p : props) {
    const size_t slash = p.first.rfind('/');
    policy_of[slash == std::string::npos ? "/" + p.first : p.first.substr(slash)] =
        p.second->filter_policy_name;
  }
  const FilterFamily family = FilterFamilyOfPolicy(&configured);
  rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(cf, &meta);
  for (const auto& level : meta.levels) {
    for (const auto& f : level.files) {
      const auto it = policy_of.find(f.name);
      const std::string policy = it == policy_of.end() ? "" : it->second;
      const FilterFamily of_table = FilterFamilyOfTable(policy);
      const bool unreadable = of_table != family ||
                              (family == FilterFamily::kOther && policy != configured.Name());
      const bool other_kind = policy != configured.Name();
      const bool was_there = options.rewrite_all && f.file_number <= last_file;
      if (unreadable || (options.rewrite_other_kinds && other_kind) || was_there) {
        out->push_back({f.name, level.level, f.size, policy});
      }
    }
  }
  return rocksdb::Status::OK();
}

}  // namespace

FilterFamily FilterFamilyOfTable(const std::string& name) {
  if (name.empty()) return FilterFamily::kNone;
  if (StartsWith(name, kIdPrefix)) {
    return EndsWith(name, kBuiltinNameSuffix) ? FilterFamily::kBuiltin : FilterFamily::kSstfilter;
  }
  // RocksDB's built-in policies: "bloomfilter", "ribbonfilter" (7.0 and
  // later), and the "rocksdb.*" names of earlier releases and aliases.
  if (name == "bloomfilter" || name == "ribbonfilter" || StartsWith(name, "rocksdb.")) {
    return FilterFamily::kBuiltin;
  }
  return FilterFamily::kOther;
}

FilterFamily FilterFamilyOfPolicy(const rocksdb::FilterPolicy* policy) {
  if (policy == nullptr) return FilterFamily::kNone;
  const std::string compat = policy->CompatibilityName();
  if (compat == kCompatibilityName) return FilterFamily::kSstfilter;
  if (compat == BuiltinPolicy()->CompatibilityName()) return FilterFamily::kBuiltin;
  return FilterFamily::kOther;
}

rocksdb::Status MigrateFilters(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf,
                               const MigrateOptions& options,
                               const std::function<void(const MigrateProgress&)>& on_file,
                               MigrateProgress* result) {
  const rocksdb::Options db_options = db->GetOptions(cf);
  const auto* table = db_options.table_factory == nullptr
                          ? nullptr
                          : db_options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  if (table == nullptr || table->filter_policy == nullptr) {
    return rocksdb::Status::InvalidArgument(
        "sstfilter migrate: the column family has no block-based filter policy to migrate to");
  }
  const rocksdb::FilterPolicy& configured = *table->filter_policy;

  // With rewrite_all: the files there now. Their rewrites, and files
  // compactions write meanwhile, get higher numbers.
  uint64_t last_file = 0;
  if (options.rewrite_all) {
    rocksdb::ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(cf, &meta);
    for (const auto& level : meta.levels) {
      for (const auto& f : level.files) last_file = std::max(last_file, f.file_number);
    }
  }
  std::vector<Candidate> todo;
  rocksdb::Status s = FindCandidates(db, cf, configured, options, last_file, &todo);
  if (!s.ok()) return s;
  MigrateProgress progress;
  progress.files_to_rewrite = todo.size();
  progress.files_remaining = todo.size();
  for (const auto& c : todo) progress.bytes_to_rewrite += c.size;
  if (result != nullptr) *result = progress;
  if (options.dry_run) return rocksdb::Status::OK();

  // Paced on the DB's Env, RocksDB's own clock for its rate limits.
  rocksdb::Env* const env = db->GetEnv();
  const uint64_t start_us = env->NowMicros();
  int idle_rounds = 0;
  while (options.max_files == 0 || progress.files_rewritten < options.max_files) {
    // Rescan each time: a compaction renames what it rewrites, and the
    // DB's own compactions may have rewritten others meanwhile.
    s = FindCandidates(db, cf, configured, options, last_file, &todo);
    if (!s.ok()) return s;
    if (todo.empty()) break;
    if (progress.files_rewritten > 2 * progress.files_to_rewrite + 8) {
      // A rewritten SST should never need it again; rather than loop, say so.
      return rocksdb::Status::Incomplete(
          "sstfilter migrate: SSTs still read as needing a rewrite after being rewritten (" +
          todo.front().file + ", filter " + todo.front().policy + ")");
    }
    const Candidate* done = nullptr;
    for (const auto& c : todo) {
      rocksdb::CompactionOptions compaction;
      s = db->CompactFiles(compaction, cf, {c.file}, c.level);
      // Aborted: the SST is in a compaction RocksDB is running, which
      // writes its output under the configured policy too.
      if (s.IsAborted()) continue;
      if (!s.ok()) return s;
      done = &c;
      break;
    }
    if (done == nullptr) {
      // Everything left is being compacted: wait for those compactions.
      uint64_t running = 0;
      db->GetIntProperty(cf, "rocksdb.num-running-compactions", &running);
      if (running == 0 && ++idle_rounds > 50) return s;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    idle_rounds = 0;
    progress.files_rewritten += 1;
    progress.bytes_rewritten += done->size;
    progress.file = done->file;
    progress.level = done->level;
    progress.file_size = done->size;
    progress.old_policy = done->policy;
    if (result != nullptr) *result = progress;
    if (on_file) on_file(progress);
    if (options.max_bytes_per_second > 0) {
      const uint64_t due_us =
          start_us + static_cast<uint64_t>(static_cast<double>(progress.bytes_rewritten) * 1e6 /
                                           static_cast<double>(options.max_bytes_per_second));
      for (uint64_t now = env->NowMicros(); now < due_us; now = env->NowMicros()) {
        env->SleepForMicroseconds(static_cast<int>(std::min<uint64_t>(due_us - now, 1000000)));
      }
    }
  }
  s = FindCandidates(db, cf, configured, options, last_file, &todo);
  if (!s.ok()) return s;
  progress.files_remaining = todo.size();
  if (result != nullptr) *result = progress;
  return rocksdb::Status::OK();
}

}  // namespace sstfilter
