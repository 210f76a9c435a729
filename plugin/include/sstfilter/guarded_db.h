// GuardedDB: one dynamic cuckoo filter per column family in front of a
// whole RocksDB, so that Get, MultiGet and KeyMayExist of an absent key are
// answered without touching the LSM tree.
//
//   #include <sstfilter/guarded_db.h>
//   std::unique_ptr<sstfilter::GuardedDB> db;
//   rocksdb::Status s = sstfilter::GuardedDB::Open(options, {}, "/path/db", &db);
//   db->Get(rocksdb::ReadOptions(), "absent", &value);  // NotFound, no LSM lookup
//
// Contract:
// - Never rules out a key the DB holds. The guard follows writes where all
//   of RocksDB's write paths meet, the memtable insert: Open wraps each
//   guarded family's memtable_factory, and every entry that can make a key
//   visible adds the key to the guard before the entry enters the memtable
//   (docs/design/key_guard.md). So these are all followed, under any
//   interleaving of threads (allow_concurrent_memtable_write included):
//   - writes through this object (Put, Merge, PutEntity, TimedPut,
//     Write with any WriteBatch, WriteBatchWithIndex's batch);
//   - transactions: TransactionDB::WrapStackableDB(this) (WRITE_COMMITTED,
//     the policy a DB opened by DB::Open supports), or a TransactionDB or
//     OptimisticTransactionDB of any write policy opened under the guard
//     by the BaseOpener form of Open; every commit, and the writes that
//     WRITE_PREPARED and WRITE_UNPREPARED make before commit;
//   - writes through GetBaseDB();
//   - ingestion through this object (the files' keys enter first).
//   Reads with a snapshot or a timestamp bypass the guard (it describes the
//   latest state only). A TransactionDB's reads inside a transaction, and
//   all reads of WRITE_PREPARED/UNPREPARED, go to the DB below the guard:
//   correct, not sped up.
// - Keys are hashed as bytes: two keys the comparator calls equal must be
//   equal bytes (as RocksDB's own filters assume). Under a comparator that
//   calls different bytes equal, a read of one spelling may be ruled out
//   when only another was written.
// - Refused with Status::NotSupported at Open or CreateColumnFamily:
//   user-defined timestamps on a guarded family; unordered_write (a write
//   is visible before its memtable insert); memtable_factory
//   HashLinkListRepFactory (its entries cannot be read). Import into a
//   guarded family (CreateColumnFamilyWithImport) is refused.
// - Not followed: ingestion around this object (GetBaseDB(), a
//   TransactionDB above it). RocksDB tells of it only once the files are
//   visible: the family's guard then switches itself off (every key "may
//   exist") until the next Open, which rebuilds. Until that notice a guarded
//   read of an ingested key may be ruled out; ingest through this object.
//   Writes by a plain DB::Open between two GuardedDB sessions are detected
//   by the next Open, which rebuilds (Restart, below). Not followed on
//   RocksDB 10.0 and later, and not tested there: the experimental writes
//   that skip the memtable (TransactionOptions::commit_bypass_memtable and
//   large_txn_commit_optimize_*, TransactionDBOptions::
//   txn_commit_bypass_memtable_threshold, DB::IngestWriteBatchWithIndex):
//   leave them off under a guard. Open builds the
//   guard from the DB's own state, so recovery needs nothing followed.
//   A read-only or secondary instance under the guard (a BaseOpener's) is
//   refused at Open: a secondary's catch-up installs SSTs no hook saw.
// - Removals leave stale entries, until the next re-presize rebuilds the
//   filter from a scan: Delete, SingleDelete, DeleteRange, a rolled-back
//   transaction's keys, compaction filters, TTL. A stale entry costs a DB
//   read for that key, never correctness. Deletes count toward the next
//   re-presize (GuardOptions::background_represize).
// - If the filter cannot take a key (kFull: DynamicCuckooFilter's size
//   limits, or no memory) the column family's guard switches itself off
//   (every key "may exist") until the next Open rebuilds it: slower, never
//   wrong.
// - Column families: with GuardOptions::column_families empty, every family
//   opened or created through this object is guarded. A family created
//   around it (GetBaseDB()) is unknown to it and unguarded: its reads go to
//   the DB; the next Open that names it guards it (rebuilt from a scan).
// - Restart: Close() (or the destructor) saves the guards to
//   GuardOptions::guard_file, checksummed, with the DB's identity, its live
//   SST files and its latest sequence number. Open deletes the file and
//   loads it only if the identity matches, that sequence number equals the
//   DB's latest, and every SST that became live since Close was written by
//   the opening session itself (the flush of the writes it recovered, or a
//   compaction since). So the next Open rebuilds the guard from a key scan
//   (progress and keys/s on stderr) after:
//   - a crash (no file), a damaged or foreign file, a missing family;
//   - a session that ingested a file (through this object or not): the
//     guard cannot tell its keys' sequence numbers;
//   - any write without the guard: a later sequence number;
//   - an ingestion that took no sequence number (SstFileWriter's files,
//     another DB's with allow_db_generated_files) leaves an SST of another
//     session;
//   - a session without the guard that compacted: its SSTs hold no new
//     key, but cannot be told from an ingestion's (a rebuild, never a miss).
//   docs/format.md has the layout.
// Thread safety: like rocksdb::DB. Close() must not race other calls.
// Cost: one filter probe per read; a write of a key the filter does not
// match yet adds one filter insert under a mutex; any other write, one
// lock-free probe.

#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/utilities/stackable_db.h>
#include <rocksdb/version.h>

#include "sstfilter/guard_options.h"

namespace sstfilter {

namespace guard_internal {
struct Impl;  // GuardedDB's state (plugin/guard/guard_impl.h)
}  // namespace guard_internal

class GuardedDB : public rocksdb::StackableDB {
 public:
  // Opens the DB at `path` with its default column family only.
  static rocksdb::Status Open(const rocksdb::Options& options, const GuardOptions& guard,
                              const std::string& path, std::unique_ptr<GuardedDB>* db);
  // With column families, as rocksdb::DB::Open: the caller owns *handles
  // and destroys them (DestroyColumnFamilyHandle) before the DB.
  static rocksdb::Status Open(const rocksdb::DBOptions& options, const GuardOptions& guard,
                              const std::string& path,
                              const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
                              std::vector<rocksdb::ColumnFamilyHandle*>* handles,
                              std::unique_ptr<GuardedDB>* db);

  // The DB under the guard, opened from the options Open prepared (the
  // families' memtable factories hooked): DB::Open by default. For
  // transactions of any write policy, open a TransactionDB or an
  // OptimisticTransactionDB here; GetBaseDB() is then that DB, whose
  // BeginTransaction commits are followed, and reads through this object
  // are guarded. The handles are the base DB's, as from DB::Open. Over a
  // base that stands over another DB (GetRootDB() is not itself) no
  // re-presize runs, and a rebuild also scans the root DB: a prepared
  // transaction's keys are in the memtable before a scan through the base
  // can see them (docs/design/key_guard.md). The base must take writes: a
  // read-only or secondary instance is refused.
  using BaseOpener = std::function<rocksdb::Status(
      const rocksdb::DBOptions& options, const std::string& path,
      const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
      std::vector<rocksdb::ColumnFamilyHandle*>* handles, rocksdb::DB** db)>;
  static rocksdb::Status Open(const rocksdb::DBOptions& options, const GuardOptions& guard,
                              const std::string& path,
                              const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
                              std::vector<rocksdb::ColumnFamilyHandle*>* handles,
                              std::unique_ptr<GuardedDB>* db, const BaseOpener& open_base);

  ~GuardedDB() override;
  GuardedDB(const GuardedDB&) = delete;
  GuardedDB& operator=(const GuardedDB&) = delete;

  GuardStats GetGuardStats() const;
  uint64_t RuledOut() const;  // GuardStats::ruled_out, cheaply

  // Closes as RocksDB does, saving the guard on the way: a running
  // re-presize is stopped; unlogged (disableWAL) writes are flushed, unless
  // avoid_flush_during_shutdown (then RocksDB drops them and the next Open
  // rebuilds or loads a guard that still matches every key the DB kept);
  // background work ends; the guard is saved; the DB closes. A
  // PauseBackgroundWork made through this object is lifted first, so that
  // flush can run (a pause made through GetBaseDB() is unknown here, and
  // RocksDB's close then waits for it as it would without the guard).
  rocksdb::Status Close() override;

  // RocksDB's, counted, so that Close can lift what is still paused.
  rocksdb::Status PauseBackgroundWork() override;
  rocksdb::Status ContinueBackgroundWork() override;

  // Rebuilds the family's guard filter for the keys it holds now and swaps
  // it in, on the calling thread, while reads and writes go on (see
  // GuardOptions::background_represize); after any background one. OK once
  // the new filter serves; otherwise the old one still does, and the status
  // says why: Incomplete (the guard is off, the family dropped, or Close
  // stopped it), NotSupported (an unguarded family, or a two-phase
  // ingestion was prepared in this session).
  rocksdb::Status RepresizeGuard(rocksdb::ColumnFamilyHandle* cf);
  // Returns once no background re-presize runs (one a write starts later
  // may run again).
  void WaitForGuardWork();

  // ---- reads -------------------------------------------------------------
  // A key the guard rules out is answered NotFound (KeyMayExist: false)
  // without entering RocksDB; every other read goes to the DB. With
  // GuardOptions::adaptive_probes (the default) a Get may go to the DB
  // unprobed while the guard rules out almost nothing (guard_options.h).
  using rocksdb::StackableDB::Get;
  using rocksdb::StackableDB::KeyMayExist;
  using rocksdb::StackableDB::MultiGet;
#if ROCKSDB_MAJOR >= 9
  rocksdb::Status Get(const rocksdb::ReadOptions& options, rocksdb::ColumnFamilyHandle* cf,
                      const rocksdb::Slice& key, rocksdb::PinnableSlice* value,
                      std::string* timestamp) override;
  void MultiGet(const rocksdb::ReadOptions& options, size_t num_keys,
                rocksdb::ColumnFamilyHandle** cfs, const rocksdb::Slice* keys,
                rocksdb::PinnableSlice* values, std::string* timestamps,
                rocksdb::Status* statuses, bool sorted_input = false) override;
#else
  rocksdb::Status Get(const rocksdb::ReadOptions& options, rocksdb::ColumnFamilyHandle* cf,
                      const rocksdb::Slice& key, rocksdb::PinnableSlice* value) override;
  std::vector<rocksdb::Status> MultiGet(const rocksdb::ReadOptions& options,
                                        const std::vector<rocksdb::ColumnFamilyHandle*>& cfs,
                                        const std::vector<rocksdb::Slice>& keys,
                                        std::vector<std::string>* values) override;
  void MultiGet(const rocksdb::ReadOptions& options, rocksdb::ColumnFamilyHandle* cf,
                size_t num_keys, const rocksdb::Slice* keys, rocksdb::PinnableSlice* values,
                rocksdb::Status* statuses, bool sorted_input = false) override;
  void MultiGet(const rocksdb::ReadOptions& options, size_t num_keys,
                rocksdb::ColumnFamilyHandle** cfs, const rocksdb::Slice* keys,
                rocksdb::PinnableSlice* values, rocksdb::Status* statuses,
                bool sorted_input = false) override;
  bool KeyMayExist(const rocksdb::ReadOptions& options, rocksdb::ColumnFamilyHandle* cf,
                   const rocksdb::Slice& key, std::string* value, std::string* timestamp,
                   bool* value_found = nullptr) override;
#endif
  bool KeyMayExist(const rocksdb::ReadOptions& options, rocksdb::ColumnFamilyHandle* cf,
                   const rocksdb::Slice& key, std::string* value,
                   bool* value_found = nullptr) override;

  // ---- writes ------------------------------------------------------------
  // Put, Merge, Delete, Write and the rest are RocksDB's own (StackableDB):
  // the hooks in the memtables follow them, as they follow every other path.
  using rocksdb::StackableDB::IngestExternalFile;
  rocksdb::Status IngestExternalFile(rocksdb::ColumnFamilyHandle* cf,
                                     const std::vector<std::string>& files,
                                     const rocksdb::IngestExternalFileOptions& options) override;
  rocksdb::Status IngestExternalFiles(
      const std::vector<rocksdb::IngestExternalFileArg>& args) override;
#if ROCKSDB_MAJOR > 11 || (ROCKSDB_MAJOR == 11 && ROCKSDB_MINOR >= 5)
  // Two-phase ingestion (RocksDB 11.5): the files' keys enter the guard
  // here, before they can become visible; an abandoned or failed commit
  // leaves them as extra entries (false positives only).
  using rocksdb::StackableDB::PrepareFileIngestion;
  rocksdb::Status PrepareFileIngestion(
      const std::vector<rocksdb::IngestExternalFileArg>& args,
      std::unique_ptr<rocksdb::FileIngestionHandle>* handle) override;
#endif
  using rocksdb::StackableDB::CreateColumnFamilyWithImport;
  rocksdb::Status CreateColumnFamilyWithImport(
      const rocksdb::ColumnFamilyOptions& options, const std::string& name,
      const rocksdb::ImportColumnFamilyOptions& import_options,
      const rocksdb::ExportImportFilesMetaData& metadata,
      rocksdb::ColumnFamilyHandle** handle) override;
#if ROCKSDB_MAJOR >= 9
  rocksdb::Status CreateColumnFamilyWithImport(
      const rocksdb::ColumnFamilyOptions& options, const std::string& name,
      const rocksdb::ImportColumnFamilyOptions& import_options,
      const std::vector<const rocksdb::ExportImportFilesMetaData*>& metadatas,
      rocksdb::ColumnFamilyHandle** handle) override;
#endif

  // ---- column families -----------------------------------------------------
  rocksdb::Status CreateColumnFamily(const rocksdb::ColumnFamilyOptions& options,
                                     const std::string& name,
                                     rocksdb::ColumnFamilyHandle** handle) override;
  rocksdb::Status CreateColumnFamilies(const rocksdb::ColumnFamilyOptions& options,
                                       const std::vector<std::string>& names,
                                       std::vector<rocksdb::ColumnFamilyHandle*>* handles) override;
  rocksdb::Status CreateColumnFamilies(
      const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
      std::vector<rocksdb::ColumnFamilyHandle*>* handles) override;
  rocksdb::Status DropColumnFamily(rocksdb::ColumnFamilyHandle* cf) override;
  rocksdb::Status DropColumnFamilies(
      const std::vector<rocksdb::ColumnFamilyHandle*>& cfs) override;
  rocksdb::Status DestroyColumnFamilyHandle(rocksdb::ColumnFamilyHandle* cf) override;

  using Impl = guard_internal::Impl;

 private:
  GuardedDB(rocksdb::DB* db, std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  bool closed_ = false;
  std::atomic<int> user_pauses_{0};  // PauseBackgroundWork calls not yet continued
};

}  // namespace sstfilter
