// guard_bench: one RocksDB (sstfilter SST filters, block cache smaller than
// the data), read with and without the key guard (GuardedDB) in the same
// run, in alternating rounds; and two fresh DBs, one plain and one guarded,
// written alike, in blocks of --write_block operations alternating within
// a round. Prints ops/s medians and the guarded/unguarded ratio per
// workload, the guard's size and measured FPR, and the rebuild rate. Exits
// non-zero if a present key was ever missed.
//
//   guard_bench --num_keys=2000000 --rounds=3
//   guard_bench --transactions   # a pessimistic TransactionDB over each DB
//
// Unguarded reads go to the DB below the guard (GetRootDB()), so both modes
// see the same tree and cache. Writes need the two DBs: the guard follows
// every write to its DB, whichever handle makes it (the memtable hook), so
// only a DB without a guard shows what a write costs without one. With
// --transactions every read goes through the TransactionDB's Get and every
// write is a one-key transaction's commit. Reads are guarded with the
// default adaptive probes, except in the row that turns them off (the DB is
// reopened for it, loading the guard its close saved). Progress goes to
// stderr.

#include <gflags/gflags.h>
#include <unistd.h>
#include <sstfilter/guarded_db.h>
#include <sstfilter/sstfilter.h>

#include <rocksdb/cache.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bench_dbs.h"
#include "growth.h"
#include "workload.h"
#include "rocksdb_adapter/db_open.h"

DEFINE_uint64(num_keys, 2000000, "keys loaded before the runs");
DEFINE_int32(value_size, 100, "value bytes (incompressible)");
DEFINE_uint64(block_cache_mb, 16, "block cache (the data is several times larger)");
DEFINE_uint64(read_ops, 200000, "operations per round of each read workload");
DEFINE_uint64(write_ops, 50000, "operations per round of each write workload");
DEFINE_uint64(write_keys, 0, "keys each of the two write DBs holds before the writes (0: "
              "enough for every round's deletes, rounds * write_ops + 50000)");
DEFINE_bool(transactions, false, "a pessimistic TransactionDB over each DB (WrapStackableDB "
            "over the guard): reads through it, writes as one-key transactions");
DEFINE_uint64(write_block, 1000, "write workloads alternate guarded and unguarded blocks of "
              "this many operations within a round (0: one block per side, as the reads)");
DEFINE_int32(batch, 32, "keys per MultiGet");
// Nine: with five, the median present Get ratio moved by about 0.05 between
// runs on a shared 2-core machine, as much as its distance to the target.
DEFINE_int32(rounds, 9, "alternating unguarded/guarded rounds per workload (median)");
DEFINE_double(target_fpr, 0.001, "the guard's target FPR");
DEFINE_string(sst_filter, "cuckoo", "sstfilter SST filter policy");
DEFINE_double(sst_bits_per_key, 12, "SST filter bits/key");
DEFINE_uint64(fpr_queries, 2000000, "distinct absent keys for the FPR measurement");
DEFINE_double(growth, 4, "after the runs, new keys are put until the guard holds this many "
              "times its keys at open, and its bits/key are compared with those at open "
              "(1: skip)");
DEFINE_string(db, "", "DB directory (default: a fresh one under $TMPDIR, removed at the end)");
DEFINE_string(workloads, "", "comma-separated prefixes of the workload names to run, as in "
              "\"absent,fillrandom\" (default: all)");

namespace {

std::string Key(uint64_t i) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "k%015llu", static_cast<unsigned long long>(i));
  return buf;
}
// Sorts between stored keys, never written: the SST filters are consulted.
std::string Absent(uint64_t i) { return Key(i) + "x"; }

std::string RandomBytes(size_t n) {
  std::mt19937_64 rng(7);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage("key guard: guarded vs unguarded RocksDB, ops/s ratios");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
#ifndef NDEBUG
  std::fprintf(stderr, "WARNING: debug build; timings are not representative\n");
#endif
  const uint64_t n = FLAGS_num_keys;
  std::string dir = FLAGS_db;
  if (dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    dir = std::string(tmp ? tmp : "/tmp") + "/guard_bench-" + std::to_string(getpid());
  }
  std::filesystem::remove_all(dir);

  rocksdb::Options options;
  options.create_if_missing = true;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(FLAGS_block_cache_mb << 20);
  rocksdb::Status s = sstfilter::NewFilterPolicy(FLAGS_sst_filter, FLAGS_sst_bits_per_key,
                                                 &table.filter_policy);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 2;
  }
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  const std::string values = RandomBytes(1 << 20);
  auto value = [&](uint64_t i) {
    return rocksdb::Slice(values.data() + (i * 7919) % (values.size() - FLAGS_value_size),
                          FLAGS_value_size);
  };

  // Load in random order without the guard, then let the first guarded
  // Open rebuild it: that is the rebuild measurement.
  {
    std::unique_ptr<rocksdb::DB> db;
    s = sstfilter::OpenDB(options, dir, &db);
    if (!s.ok()) {
      std::fprintf(stderr, "open: %s\n", s.ToString().c_str());
      return 1;
    }
    std::vector<uint64_t> order(n);
    for (uint64_t i = 0; i < n; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), std::mt19937_64(1));
    rocksdb::WriteOptions wo;
    wo.disableWAL = true;
    const auto start = guard_bench::Clock::now();
    for (uint64_t i = 0; i < n; i += 1000) {
      rocksdb::WriteBatch b;
      for (uint64_t j = i; j < std::min(n, i + 1000); ++j) b.Put(Key(order[j]), value(order[j]));
      db->Write(wo, &b);
      if ((i / 1000) % 500 == 0) std::fprintf(stderr, "load: %llu keys\n", (unsigned long long)i);
    }
    db->Flush(rocksdb::FlushOptions());
    std::fprintf(stderr, "load: %llu keys in %.1f s; compacting...\n", (unsigned long long)n,
                 guard_bench::Since(start));
    db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr);
  }
  sstfilter::GuardOptions guard;
  guard.target_fpr = FLAGS_target_fpr;
  std::unique_ptr<guard_bench::BenchDB> main_db;
  sstfilter::GuardedDB* gdb = nullptr;
  rocksdb::DB* guarded_reads = nullptr;
  rocksdb::DB* base = nullptr;
  // (Re)opens the read DB with adaptive probes on or off; a reopen loads
  // the guard the close saved.
  auto open_main = [&](bool adaptive) {
    if (main_db) main_db->Close();
    sstfilter::GuardOptions g = guard;
    g.adaptive_probes = adaptive;
    main_db = std::make_unique<guard_bench::BenchDB>(options, g, dir, /*guarded=*/true,
                                                     FLAGS_transactions);
    if (!main_db->status().ok()) {
      std::fprintf(stderr, "guarded open: %s\n", main_db->status().ToString().c_str());
      std::exit(1);
    }
    gdb = main_db->guard();
    guarded_reads = main_db->top();
    base = gdb->GetRootDB();
  };
  bool adaptive = true;
  open_main(adaptive);
  const sstfilter::GuardStats built = gdb->GetGuardStats();

  // The write DBs: the same options and keys, one without a guard.
  guard.report_progress = false;
  const uint64_t wn = FLAGS_write_keys > 0 ? FLAGS_write_keys
                                           : FLAGS_rounds * FLAGS_write_ops + 50000;
  std::unique_ptr<guard_bench::BenchDB> writes[2];
  for (int g = 0; g < 2; ++g) {
    const std::string wdir = dir + (g ? "-writes-guarded" : "-writes-plain");
    std::filesystem::remove_all(wdir);
    writes[g] = std::make_unique<guard_bench::BenchDB>(options, guard, wdir, g == 1,
                                                       FLAGS_transactions);
    if (!writes[g]->status().ok()) {
      std::fprintf(stderr, "open %s: %s\n", wdir.c_str(), writes[g]->status().ToString().c_str());
      return 1;
    }
    writes[g]->Fill(wn, Key, value);
  }
  // One write on side g: a one-key transaction with --transactions.
  auto write = [&](int g, const std::string& key, const rocksdb::Slice& v, bool put) {
    return writes[g]->WriteOne(key, v, put);
  };

  std::mt19937_64 rng(42);
  uint64_t misses = 0, fresh = 0;
  rocksdb::ReadOptions ro;
  rocksdb::WriteOptions wo;
  std::vector<uint64_t> doomed(wn);  // keys of the write DBs to delete, each once
  for (uint64_t i = 0; i < wn; ++i) doomed[i] = i;
  std::shuffle(doomed.begin(), doomed.end(), rng);
  uint64_t next_doomed[2] = {0, 0};

  // Read keys are made before the clock starts: formatting one costs about
  // as much as a ruled-out Get, and would hide the difference.
  const uint64_t pool = FLAGS_read_ops;
  std::vector<std::string> absent_keys(pool), present_keys(pool);
  for (uint64_t i = 0; i < pool; ++i) {
    absent_keys[i] = Absent(rng() % n);
    present_keys[i] = Key(rng() % n);
  }
  auto pick = [&](const std::vector<std::string>& keys) -> const std::string& {
    return keys[rng() % keys.size()];
  };

  // Gets of present keys, 1 in 20 of an absent one: under the share at
  // which adaptive probes probe every Get.
  auto mostly_present = [&](rocksdb::DB* db, uint64_t count) {
    std::string v;
    for (uint64_t i = 0; i < count; ++i) {
      if (rng() % 20 == 0) {
        db->Get(ro, pick(absent_keys), &v);
      } else {
        misses += db->Get(ro, pick(present_keys), &v).ok() ? 0 : 1;
      }
    }
  };
  auto present_gets = [&](rocksdb::DB* db, uint64_t count) {
    std::string v;
    for (uint64_t i = 0; i < count; ++i) misses += db->Get(ro, pick(present_keys), &v).ok() ? 0 : 1;
  };
  auto absent_gets = [&](rocksdb::DB* db, uint64_t count) {
    std::string v;
    for (uint64_t i = 0; i < count; ++i) db->Get(ro, absent_keys[i % pool], &v);
  };
  // Absent reads time kAbsentOpsFactor times --read_ops. A block starts in
  // the cache state the other side's block left: a guarded absent Get
  // takes about 35 ns in a warm cache, so a guarded block of 200,000 is
  // under 10 ms, and reloading the guard's table (4 MB at 2M keys) took a
  // large share of it. In blocks five times as long each side is timed
  // mostly in the state its own reads keep, as a flood of absent keys
  // would be. The row "absent Get, short blocks" keeps --read_ops, for
  // comparison.
  constexpr uint64_t kAbsentOpsFactor = 5;
  const uint64_t absent_ops = kAbsentOpsFactor * FLAGS_read_ops;
  std::vector<guard_bench::Workload> workloads = {
      {"absent Get", 5.0, "", [&](rocksdb::DB* db, bool, uint64_t count) {
         absent_gets(db, count);
       }, absent_ops},
      {"absent MultiGet", 5.0, "", [&](rocksdb::DB* db, bool, uint64_t count) {
         std::vector<rocksdb::Slice> slices(FLAGS_batch);
         std::vector<rocksdb::PinnableSlice> vals(FLAGS_batch);
         std::vector<rocksdb::Status> st(FLAGS_batch);
         // The keys in pool order, like absent Get: a random pick costs two
         // cache misses (the string and its bytes), more than the probe.
         for (uint64_t i = 0; i < count; i += FLAGS_batch) {
           for (int j = 0; j < FLAGS_batch; ++j) slices[j] = absent_keys[(i + j) % pool];
           db->MultiGet(ro, db->DefaultColumnFamily(), FLAGS_batch, slices.data(), vals.data(),
                        st.data());
         }
       }, absent_ops},
      {"absent Get, short blocks", 0, "blocks of --read_ops, started cold",
       [&](rocksdb::DB* db, bool, uint64_t count) { absent_gets(db, count); }, FLAGS_read_ops},
      {"present Get", 0.95, "", [&](rocksdb::DB* db, bool, uint64_t count) {
         present_gets(db, count);
       }, FLAGS_read_ops},
      {"present Get, every Get probed", 0, "adaptive_probes off", [&](rocksdb::DB* db, bool,
                                                                     uint64_t count) {
         present_gets(db, count);
       }, FLAGS_read_ops, false, /*adaptive=*/false},
      {"Get, 5% absent, every Get probed", 0, "adaptive_probes off",
       [&](rocksdb::DB* db, bool, uint64_t count) { mostly_present(db, count); }, FLAGS_read_ops,
       false, /*adaptive=*/false},
      {"absent Get, every Get probed", 0, "adaptive_probes off", [&](rocksdb::DB* db, bool,
                                                                    uint64_t count) {
         absent_gets(db, count);
       }, absent_ops, false, /*adaptive=*/false},
      {"Get, 5% absent", 0, "under 1 in 16: most Gets, absent ones included, go unprobed",
       [&](rocksdb::DB* db, bool, uint64_t count) { mostly_present(db, count); }, FLAGS_read_ops},
      {"fillrandom (new keys)", 0.9, "", [&](rocksdb::DB*, bool g, uint64_t count) {
         for (uint64_t i = 0; i < count; ++i) {
           write(g, Key(rng() % n) + "n" + std::to_string(fresh++), value(i), true);
         }
       }, FLAGS_write_ops, true},
      {"overwrite", 0, "", [&](rocksdb::DB*, bool g, uint64_t count) {
         for (uint64_t i = 0; i < count; ++i) write(g, Key(rng() % wn), value(i), true);
       }, FLAGS_write_ops, true},
      {"mixed 90/10, 50% absent reads", 0, "writes on both sides followed by the guard",
       [&](rocksdb::DB* db, bool, uint64_t count) {
         std::string v;
         for (uint64_t i = 0; i < count; ++i) {
           const uint64_t r = rng();
           if (r % 10 == 0) {
             db->Put(wo, Key(rng() % n) + "m" + std::to_string(fresh++), value(i));
           } else if (r % 2 == 0) {
             db->Get(ro, pick(absent_keys), &v);
           } else {
             misses += db->Get(ro, pick(present_keys), &v).ok() ? 0 : 1;
           }
         }
       }, FLAGS_read_ops},
      {"delete", 0, "", [&](rocksdb::DB*, bool g, uint64_t count) {
         for (uint64_t i = 0; i < count && next_doomed[g] < wn; ++i) {
           write(g, Key(doomed[next_doomed[g]++]), rocksdb::Slice(), false);
         }
       }, FLAGS_write_ops, true},
  };

  std::printf("Workload: %llu keys of %d+16 bytes, block cache %llu MiB, SST filter %s:%g; "
              "%d rounds; one thread%s; absent reads %llu operations a round and side, other "
              "reads %llu. Reads: the guarded DB against the DB below its guard. "
              "Writes: two DBs of %llu keys, one guarded and one plain, in alternating blocks "
              "of %llu operations within a round; a write of a key the guard matches costs a "
              "filter probe, a new key's a probe and an insert.\n\n",
              static_cast<unsigned long long>(n), FLAGS_value_size,
              static_cast<unsigned long long>(FLAGS_block_cache_mb), FLAGS_sst_filter.c_str(),
              FLAGS_sst_bits_per_key, FLAGS_rounds,
              FLAGS_transactions ? "; a pessimistic TransactionDB over each DB (reads through "
                                   "its Get, each write a one-key transaction)"
                                 : "",
              static_cast<unsigned long long>(absent_ops),
              static_cast<unsigned long long>(FLAGS_read_ops),
              static_cast<unsigned long long>(wn),
              static_cast<unsigned long long>(FLAGS_write_block));
  std::printf("| workload | unguarded ops/s | guarded ops/s | guarded/unguarded (median of rounds) | target |\n");
  std::printf("|---|---:|---:|---:|---|\n");
  for (const guard_bench::Workload& w : workloads) {
    if (!guard_bench::Selected(FLAGS_workloads, w.name)) continue;
    if (w.adaptive != adaptive) open_main(adaptive = w.adaptive);
    guard_bench::PrintRow(w, guard_bench::Measure(w, FLAGS_rounds, FLAGS_write_block, base,
                                                  guarded_reads));
    std::fflush(stdout);
  }
  // FPR over distinct keys never written (after all the writes above, so
  // stale entries from the deletes count too).
  const uint64_t fpr_queries = std::min<uint64_t>(n, FLAGS_fpr_queries);
  const uint64_t before = gdb->RuledOut();
  for (uint64_t i = 0; i < fpr_queries; ++i) {
    std::string v;
    gdb->KeyMayExist(ro, Key(i) + "y", &v);
  }
  const uint64_t absent_queries = fpr_queries;
  const double fpr = 1.0 - static_cast<double>(gdb->RuledOut() - before) / fpr_queries;
  const double bits = built.keys ? built.memory_bytes * 8.0 / built.keys : 0;
  const double per_m = built.rebuilt_keys ? built.rebuild_seconds * 1e6 / built.rebuilt_keys : 0;
  std::printf("\n| guard | value | target |\n|---|---:|---|\n");
  std::printf("| keys at open | %llu | |\n", static_cast<unsigned long long>(built.keys));
  std::printf("| bits/key at open | %.2f | <= 16: %s |\n", bits, bits <= 16 ? "holds" : "MISSED");
  std::printf("| measured FPR (%llu absent keys) | %.4f%% | <= %.3f%%: %s |\n",
              static_cast<unsigned long long>(absent_queries), fpr * 100,
              FLAGS_target_fpr * 100, fpr <= FLAGS_target_fpr ? "holds" : "MISSED");
  std::printf("| rebuild, s per million keys | %.2f | (%.0f keys/s) |\n", per_m,
              per_m > 0 ? 1e6 / per_m : 0.0);
  std::printf("| present keys missed | %llu | 0 |\n", static_cast<unsigned long long>(misses));
  if (FLAGS_growth > 1 && built.keys > 0) {
    guard_bench::ReportGrowth(gdb, guarded_reads, Key, /*first_key=*/2 * n,  // past every key
                              FLAGS_growth, built.keys, bits, fpr_queries, FLAGS_target_fpr);
  }
  main_db->Close();
  for (auto& w : writes) w->Close();
  if (FLAGS_db.empty()) std::filesystem::remove_all(dir);
  std::filesystem::remove_all(dir + "-writes-guarded");
  std::filesystem::remove_all(dir + "-writes-plain");
  return misses == 0 ? 0 : 1;
}
