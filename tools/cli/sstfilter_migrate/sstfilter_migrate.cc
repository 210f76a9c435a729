// sstfilter_migrate: rewrites the SSTs of a DB whose filter its configured
// policy cannot read (sstfilter/migrate.h), e.g. the built-in Bloom SSTs
// of a DB now configured with sstfilter.cuckoo:12.
//
//   sstfilter_migrate <DB directory> [OPTIONS file] [flags]
//     --dry_run              list what needs rewriting, rewrite nothing
//     --all_kinds            also rewrite readable SSTs another policy wrote
//     --all                  rewrite every SST, once (to apply a changed
//                            bits_per_key or allocation to older SSTs)
//     --max_mb_per_sec=N     pace the rewrites (input MB per second)
//     --max_files=N          stop after N SSTs; run again to continue
//
// The policy migrated to is the one in the OPTIONS file given, else in the
// DB's latest OPTIONS file; the DB is opened with those options (so the
// plugin must be in this binary: it is). Progress goes to stdout, one line
// per SST; the last line says how many SSTs still need a rewrite (0: done).
// Exit status 0 on success, 1 on an error, 2 on bad usage.

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/options_util.h>
#include <sstfilter/migrate.h>
#include <sstfilter/sstfilter.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb_adapter/db_open.h"

namespace {

int Usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s <DB directory> [OPTIONS file] [--dry_run] [--all_kinds] [--all]\n"
               "       [--max_mb_per_sec=N] [--max_files=N]\n",
               argv0);
  return 2;
}

bool NumberFlag(const char* arg, const char* name, double* value) {
  const size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  char* end = nullptr;
  *value = std::strtod(arg + n + 1, &end);
  return end != arg + n + 1 && *end == '\0' && *value >= 0;
}

int Fail(const char* what, const rocksdb::Status& s) {
  std::printf("error: %s: %s\n", what, s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> paths;
  sstfilter::MigrateOptions options;
  for (int i = 1; i < argc; ++i) {
    double v = 0;
    if (std::strcmp(argv[i], "--dry_run") == 0) {
      options.dry_run = true;
    } else if (std::strcmp(argv[i], "--all_kinds") == 0) {
      options.rewrite_other_kinds = true;
    } else if (std::strcmp(argv[i], "--all") == 0) {
      options.rewrite_all = true;
    } else if (NumberFlag(argv[i], "--max_mb_per_sec", &v)) {
      options.max_bytes_per_second = static_cast<uint64_t>(v * 1048576);
    } else if (NumberFlag(argv[i], "--max_files", &v)) {
      options.max_files = static_cast<size_t>(v);
    } else if (argv[i][0] == '-') {
      return Usage(argv[0]);
    } else {
      paths.push_back(argv[i]);
    }
  }
  if (paths.empty() || paths.size() > 2) return Usage(argv[0]);
  const std::string& db_path = paths[0];

  rocksdb::ConfigOptions config;
  config.env = rocksdb::Env::Default();
  rocksdb::DBOptions db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  rocksdb::Status s = paths.size() == 2
                          ? rocksdb::LoadOptionsFromFile(config, paths[1], &db_options, &cfs)
                          : rocksdb::LoadLatestOptions(config, db_path, &db_options, &cfs);
  if (!s.ok()) return Fail("loading options", s);
  for (const auto& cf : cfs) {
    // A policy id no library registered loads as null: refuse, or every
    // SST would be "migrated" to no filter at all.
    const rocksdb::Status check = sstfilter::CheckFilterPolicyInEffect(cf.options);
    if (!check.ok()) {
      const auto* table = cf.options.table_factory == nullptr
                              ? nullptr
                              : cf.options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
      if (table == nullptr || table->filter_policy == nullptr) {
        return Fail(("column family " + cf.name).c_str(), check);
      }
      // Another (e.g. built-in) policy: migrating to it is fine too.
    }
  }

  std::unique_ptr<rocksdb::DB> db;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  s = sstfilter::OpenDB(db_options, db_path, cfs, &handles, &db);
  if (!s.ok()) return Fail("opening the DB", s);

  int status = 0;
  for (size_t i = 0; i < handles.size() && status == 0; ++i) {
    const auto* table = cfs[i].options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
    std::printf("[%s] migrating to %s\n", cfs[i].name.c_str(), table->filter_policy->Name());
    sstfilter::MigrateProgress done;
    s = sstfilter::MigrateFilters(
        db.get(), handles[i], options,
        [&](const sstfilter::MigrateProgress& p) {
          std::printf("[%s] %zu/%zu %s (L%d, %.1f MB, filter %s) rewritten; %.1f of %.1f MB\n",
                      cfs[i].name.c_str(), p.files_rewritten, p.files_to_rewrite, p.file.c_str(),
                      p.level, p.file_size / 1048576.0, p.old_policy.empty() ? "none" : p.old_policy.c_str(),
                      p.bytes_rewritten / 1048576.0, p.bytes_to_rewrite / 1048576.0);
          std::fflush(stdout);
        },
        &done);
    if (!s.ok()) {
      status = Fail("migrating", s);
      break;
    }
    std::printf("[%s] %s%zu SSTs (%.1f MB) needed a rewrite; %zu rewritten; %zu still need one\n",
                cfs[i].name.c_str(), options.dry_run ? "dry run: " : "", done.files_to_rewrite,
                done.bytes_to_rewrite / 1048576.0, done.files_rewritten, done.files_remaining);
  }
  for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
  return status;
}
