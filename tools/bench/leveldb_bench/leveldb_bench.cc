// leveldb_bench: LevelDB's own Bloom policy, no filter, and sstfilter's
// LevelDB policies on one workload, with ratios to LevelDB's Bloom measured
// in the same run. Prints markdown tables and a legend; progress on stderr.
//
//   build/tools/leveldb_bench --num=200000 --bits_per_key=10
//
// Each policy gets a fresh DB: --num keys written in shuffled order and
// compacted into one level. Then --repeats timed passes, each visiting every
// DB in turn (so a slow moment of a shared machine hits all policies alike):
// --reads Gets of present keys and --reads of absent keys that sort between
// them; the median pass is reported. LevelDB runs with no block cache, so
// each data block a Get needs is one table-file read, counted through a
// wrapping Env; index and filter blocks stay in memory with the open table.

#include <gflags/gflags.h>
#include <leveldb/cache.h>
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/write_batch.h>
#include <sstfilter/leveldb.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "leveldb_bench_util.h"
#include "util/read_counting_env.h"

DEFINE_uint64(num, 200000, "keys written to each database");
DEFINE_double(bits_per_key, 10, "bits/key for every filter policy (LevelDB's rounded down)");
DEFINE_uint64(reads, 100000, "Gets of present keys, and again of absent keys");
DEFINE_uint64(value_size, 100, "value bytes; values compress to about half, like db_bench's");
DEFINE_string(key_style, "sequential",
              "sequential: \"%016llu\" numbers, absent keys the odd ones between; "
              "random: 16 hex digits of a 64-bit mix, absent keys from another range");
DEFINE_string(policies, "leveldb_bloom,none,bloom,cuckoo",
              "comma list of: leveldb_bloom, none, bloom, cuckoo, cuckoo_plain, cuckoo_semisorted");
DEFINE_string(db, "", "directory for the databases (default: a new one under $TMPDIR or /tmp)");
DEFINE_uint64(repeats, 5, "timed passes over the same Gets, interleaved across policies; "
              "the median is reported");
DEFINE_bool(small_filters, true, "also print the per-filter-size table (no database)");

namespace sstfilter {
namespace {

// Forwards to a policy, counting the filters and bytes it writes.
class CountingPolicy : public leveldb::FilterPolicy {
 public:
  explicit CountingPolicy(const leveldb::FilterPolicy* base) : base_(base) {}
  const char* Name() const override { return base_->Name(); }
  void CreateFilter(const leveldb::Slice* keys, int n, std::string* dst) const override {
    const size_t before = dst->size();
    base_->CreateFilter(keys, n, dst);
    filters_ += 1;
    keys_ += static_cast<uint64_t>(n);
    bytes_ += dst->size() - before;
  }
  bool KeyMayMatch(const leveldb::Slice& key, const leveldb::Slice& filter) const override {
    return base_->KeyMayMatch(key, filter);
  }
  mutable std::atomic<uint64_t> filters_{0}, keys_{0}, bytes_{0};

 private:
  const leveldb::FilterPolicy* base_;
};

struct Result {
  std::string policy;
  double present_ops = 0, missing_ops = 0;
  double reads_per_1000_missing = 0, reads_per_1000_present = 0;
  double filter_bytes_per_key = 0, keys_per_filter = 0;
};

std::string ValueAt(uint64_t i) {
  // Half pseudo-random, half repeated: snappy compresses it to about 50%.
  std::string v(FLAGS_value_size, 'x');
  uint64_t s = i;
  for (size_t j = 0; j < v.size() / 2; ++j) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    v[j] = static_cast<char>('a' + (s >> 59));
  }
  return v;
}

void Die(const std::string& what, const leveldb::Status& s) {
  fprintf(stderr, "leveldb_bench: %s: %s\n", what.c_str(), s.ToString().c_str());
  exit(1);
}

// Repeats CompactRange until one level holds every table: one call can
// leave two overlapping levels, which would make absent Gets probe twice.
void CompactToOneLevel(leveldb::DB* db) {
  for (int round = 0; round < 4; ++round) {
    db->CompactRange(nullptr, nullptr);
    int levels = 0;
    for (int level = 0; level < 7; ++level) {
      std::string files;
      db->GetProperty("leveldb.num-files-at-level" + std::to_string(level), &files);
      levels += files != "0";
    }
    if (levels <= 1) return;
  }
}

// Gets of `count` keys, each checked found (or not) as expected; returns
// Gets/s, and the table-file reads per 1000 Gets in *reads_per_1000.
double TimedGets(leveldb::DB* db, uint64_t count, bool present, ReadCountingEnv* env,
                 double* reads_per_1000) {
  std::string value;
  env->ResetReads();
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t j = 0; j < count; ++j) {
    const uint64_t i = BenchMix(j) % FLAGS_num;  // a fixed pseudo-random sample
    const std::string key = present ? BenchKey(i, FLAGS_key_style) : BenchAbsentKey(i, FLAGS_key_style);
    const leveldb::Status s = db->Get({}, key, &value);
    if (present ? !s.ok() || value != ValueAt(i) : !s.IsNotFound()) {
      Die(std::string(present ? "present" : "absent") + " key " + key + " answered wrongly", s);
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  *reads_per_1000 = 1000.0 * static_cast<double>(env->reads()) / static_cast<double>(count);
  return static_cast<double>(count) / secs;
}

// One policy's database, open for the timed passes.
struct PolicyDB {
  std::string name, path;
  std::unique_ptr<const leveldb::FilterPolicy> base;
  std::unique_ptr<CountingPolicy> counting;
  ReadCountingEnv env;
  std::unique_ptr<leveldb::Cache> no_cache{leveldb::NewLRUCache(0)};
  std::unique_ptr<leveldb::DB> db;
  std::vector<double> present_ops, missing_ops;
  Result result;
};

// Creates the policy's DB under `dir`, writes --num keys and compacts them.
std::unique_ptr<PolicyDB> BuildPolicyDB(const std::string& name, const std::string& dir) {
  auto p = std::make_unique<PolicyDB>();
  p->name = name;
  p->path = dir + "/" + name;
  if (name == "leveldb_bloom") {
    p->base.reset(leveldb::NewBloomFilterPolicy(static_cast<int>(FLAGS_bits_per_key)));
  } else if (name != "none") {
    const leveldb::Status s = NewLevelDBFilterPolicy(name, FLAGS_bits_per_key, &p->base);
    if (!s.ok()) Die("policy " + name, s);
  }
  if (p->base) p->counting = std::make_unique<CountingPolicy>(p->base.get());

  leveldb::Options options;
  options.create_if_missing = true;
  options.error_if_exists = true;
  options.env = &p->env;
  options.block_cache = p->no_cache.get();
  options.filter_policy = p->counting.get();
  leveldb::DB* raw = nullptr;
  leveldb::Status s = leveldb::DB::Open(options, p->path, &raw);
  if (!s.ok()) Die("open " + p->path, s);
  p->db.reset(raw);

  fprintf(stderr, "[%s] writing %llu keys and compacting\n", name.c_str(),
          static_cast<unsigned long long>(FLAGS_num));
  leveldb::WriteBatch batch;
  for (uint64_t j = 0; j < FLAGS_num; ++j) {
    const uint64_t i = (j * 7919) % FLAGS_num;  // shuffled, so level-0 files overlap
    batch.Put(BenchKey(i, FLAGS_key_style), ValueAt(i));
    if (batch.ApproximateSize() > (1 << 20)) {
      if (!(s = p->db->Write({}, &batch)).ok()) Die("write", s);
      batch.Clear();
    }
  }
  if (!(s = p->db->Write({}, &batch)).ok()) Die("write", s);
  CompactToOneLevel(p->db.get());

  Result& r = p->result;
  r.policy = name == "leveldb_bloom" ? "LevelDB NewBloomFilterPolicy" : name == "none" ? "no filter" : "sstfilter " + name;
  if (p->counting && p->counting->keys_ > 0) {
    r.filter_bytes_per_key = static_cast<double>(p->counting->bytes_) / static_cast<double>(p->counting->keys_);
    r.keys_per_filter = static_cast<double>(p->counting->keys_) / static_cast<double>(p->counting->filters_);
  }
  return p;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// --repeats passes, each over every DB in turn; medians into the results.
// The read counts are the same on every pass.
void TimeInterleaved(const std::vector<std::unique_ptr<PolicyDB>>& dbs) {
  const uint64_t passes = std::max<uint64_t>(1, FLAGS_repeats);
  for (uint64_t pass = 0; pass < passes; ++pass) {
    fprintf(stderr, "pass %llu/%llu: %llu present and %llu absent Gets per policy\n",
            static_cast<unsigned long long>(pass + 1), static_cast<unsigned long long>(passes),
            static_cast<unsigned long long>(FLAGS_reads), static_cast<unsigned long long>(FLAGS_reads));
    for (const auto& p : dbs) {
      Result& r = p->result;
      p->present_ops.push_back(TimedGets(p->db.get(), FLAGS_reads, true, &p->env,
                                         &r.reads_per_1000_present));
      p->missing_ops.push_back(TimedGets(p->db.get(), FLAGS_reads, false, &p->env,
                                         &r.reads_per_1000_missing));
    }
  }
  for (const auto& p : dbs) {
    p->result.present_ops = Median(p->present_ops);
    p->result.missing_ops = Median(p->missing_ops);
  }
}

std::string Ratio(double value, double base) {
  if (base <= 0) return "-";
  char buf[32];
  snprintf(buf, sizeof(buf), "%.2fx", value / base);
  return buf;
}

void PrintTable(const std::vector<Result>& results) {
  const Result* ref = nullptr;
  for (const Result& r : results) {
    if (r.policy == "LevelDB NewBloomFilterPolicy") ref = &r;
  }
  printf("\n## LevelDB: %llu keys (%s), %llu-byte values, %g bits/key, %llu reads each\n\n",
         static_cast<unsigned long long>(FLAGS_num), FLAGS_key_style.c_str(),
         static_cast<unsigned long long>(FLAGS_value_size), FLAGS_bits_per_key,
         static_cast<unsigned long long>(FLAGS_reads));
  printf("| policy | present Gets/s | absent Gets/s | reads/1000 absent | vs LevelDB | "
         "reads/1000 present | filter bytes/key | vs LevelDB | keys/filter |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Result& r : results) {
    printf("| %s | %.0f | %.0f | %.1f | %s | %.0f | %.3f | %s | %.1f |\n", r.policy.c_str(),
           r.present_ops, r.missing_ops, r.reads_per_1000_missing,
           ref ? Ratio(r.reads_per_1000_missing, ref->reads_per_1000_missing).c_str() : "-",
           r.reads_per_1000_present, r.filter_bytes_per_key,
           ref && r.filter_bytes_per_key > 0 ? Ratio(r.filter_bytes_per_key, ref->filter_bytes_per_key).c_str() : "-",
           r.keys_per_filter);
  }
  printf("\nLegend:\n"
         "- present/absent Gets/s: single-threaded DB::Get rate, no block cache, median\n"
         "  of %llu passes interleaved across the policies.\n"
         "- reads/1000 absent: table-file reads (RandomAccessFile::Read) per 1000 Gets of\n"
         "  keys that were never written; each is a filter false positive (or, with no\n"
         "  filter, every lookup). Lower is better. vs LevelDB: ratio to LevelDB's\n"
         "  NewBloomFilterPolicy(%d) in this run.\n"
         "- reads/1000 present: the same for written keys (about 1000: one data block each).\n"
         "- filter bytes/key: bytes of all filters written (flushes and compactions)\n"
         "  divided by the keys given to them; vs LevelDB as above.\n"
         "- keys/filter: keys per LevelDB filter (one filter per 2 KiB of block offsets).\n",
         static_cast<unsigned long long>(FLAGS_repeats), static_cast<int>(FLAGS_bits_per_key));
}

}  // namespace
}  // namespace sstfilter

int main(int argc, char** argv) {
  gflags::SetUsageMessage("LevelDB filter policies on one workload; see tools/bench/leveldb_bench/leveldb_bench.cc");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
#ifndef NDEBUG
  fprintf(stderr, "WARNING: leveldb_bench built without NDEBUG: timings are not meaningful\n");
#endif
  if (FLAGS_num < 2 || FLAGS_reads == 0 ||
      (FLAGS_key_style != "sequential" && FLAGS_key_style != "random")) {
    fprintf(stderr, "leveldb_bench: need --num >= 2, --reads >= 1, --key_style sequential|random\n");
    return 1;
  }
  std::string dir = FLAGS_db;
  if (dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp ? tmp : "/tmp") + "/leveldb_bench-XXXXXX";
    if (mkdtemp(&tmpl[0]) == nullptr) {
      perror("mkdtemp");
      return 1;
    }
    dir = tmpl;
  }
  std::vector<std::unique_ptr<sstfilter::PolicyDB>> dbs;
  std::stringstream names(FLAGS_policies);
  for (std::string name; std::getline(names, name, ',');) {
    dbs.push_back(sstfilter::BuildPolicyDB(name, dir));
  }
  sstfilter::TimeInterleaved(dbs);
  std::vector<sstfilter::Result> results;
  for (auto& p : dbs) {
    results.push_back(p->result);
    p->db.reset();
    leveldb::DestroyDB(p->path, leveldb::Options());
  }
  if (FLAGS_db.empty()) std::filesystem::remove_all(dir);
  if (!results.empty()) sstfilter::PrintTable(results);
  if (FLAGS_small_filters) sstfilter::PrintSmallFilterTable(FLAGS_bits_per_key, FLAGS_key_style);
  return 0;
}
