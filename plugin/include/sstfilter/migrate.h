// Rewriting the SSTs whose filter the configured policy cannot read.
//
// RocksDB finds a table's filter block under the configured policy's
// compatibility family only (docs/policy_switches.md). After a switch to
// another family, SSTs written before it are read unfiltered until a
// compaction happens to rewrite them. MigrateFilters rewrites exactly
// those, one SST at a time, as ordinary compactions (CompactFiles into
// the SST's own level) under the DB's current table options, so every key
// stays readable during and after. It is resumable: what it rewrote no
// longer needs it, so a second call continues where the first stopped.
// tools/cli/sstfilter_migrate is the command-line form.

#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/status.h>

namespace sstfilter {

// The meta block family a filter is stored under; a policy reads only its
// own family's filters.
enum class FilterFamily {
  kNone,       // no filter policy / an SST written without a filter
  kSstfilter,  // sstfilter's own ("sstfilter")
  kBuiltin,    // RocksDB's built-in Bloom and Ribbon filters, and sstfilter
               // policies with compat=builtin
  kOther,      // any other policy: its own family, by name
};

// The family of an SST's filter, from the filter policy name in its table
// properties ("bloomfilter", "sstfilter.cuckoo", "sstfilter.cuckoo+builtin",
// "" for none, ...).
FilterFamily FilterFamilyOfTable(const std::string& filter_policy_name);

// The family `policy` (may be null) writes and reads.
FilterFamily FilterFamilyOfPolicy(const rocksdb::FilterPolicy* policy);

struct MigrateOptions {
  // Also rewrite SSTs whose filter the configured policy can read but that
  // another policy wrote (e.g. sstfilter.bloom SSTs under sstfilter.cuckoo).
  bool rewrite_other_kinds = false;
  // Rewrite every SST the column family has when the call starts, once,
  // whatever wrote it: to give older SSTs a changed bits_per_key or
  // allocation. Not resumable: a second call rewrites them all again.
  bool rewrite_all = false;
  // Paces the rewrites to at most this many input bytes per second (0: no
  // limit): after each file, sleeps until the bytes rewritten so far are
  // due, by the DB's Env (NowMicros, SleepForMicroseconds). The DB's own
  // rate_limiter, if any, applies as well.
  uint64_t max_bytes_per_second = 0;
  // Stop after this many SSTs (0: all); call again to continue.
  size_t max_files = 0;
  // Count what would be rewritten, rewrite nothing.
  bool dry_run = false;
};

struct MigrateProgress {
  size_t files_to_rewrite = 0;  // found by the first scan
  uint64_t bytes_to_rewrite = 0;
  size_t files_rewritten = 0;
  uint64_t bytes_rewritten = 0;
  // Still needing a rewrite at the end (set in the final *progress only):
  // 0 when the migration is complete.
  size_t files_remaining = 0;
  // The SST just rewritten: file name, level, size, its filter policy name.
  std::string file;
  int level = 0;
  uint64_t file_size = 0;
  std::string old_policy;
};

// Rewrites the SSTs of `cf` that need it (see above), calling `on_file`
// (if set) after each. *progress (may be null) holds the final counts.
// InvalidArgument if `cf` has no block-based table or no filter policy;
// the first failed compaction's status otherwise. An SST that one of
// RocksDB's own compactions is rewriting is left to it (its output is
// written under the configured policy as well); when only such SSTs are
// left, this waits for those compactions to finish.
rocksdb::Status MigrateFilters(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf,
                               const MigrateOptions& options,
                               const std::function<void(const MigrateProgress&)>& on_file,
                               MigrateProgress* progress);

}  // namespace sstfilter
