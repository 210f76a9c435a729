// The per-filter-size table of tools/leveldb_bench: what LevelDB's one
// filter per 2 KiB of block offsets means for bytes/key and FPR.

#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>
#include <sstfilter/leveldb.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "filters/reader_dispatch.h"
#include "leveldb_bench_util.h"

namespace sstfilter {

uint64_t BenchMix(uint64_t i) {
  uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace {

std::string Format(const char* fmt, uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof(buf), fmt, static_cast<unsigned long long>(v));
  return buf;
}

struct Measured {
  double bytes = 0, false_positives = 0, queries = 0, filters = 0;
  double cuckoo_tables = 0, small_form = 0, query_seconds = 0;
};

void Measure(const leveldb::FilterPolicy& policy, const std::vector<std::string>& keys,
             const std::vector<std::string>& absent, Measured* m) {
  std::vector<leveldb::Slice> slices(keys.begin(), keys.end());
  std::string filter;
  policy.CreateFilter(slices.data(), static_cast<int>(slices.size()), &filter);
  m->bytes += static_cast<double>(filter.size());
  m->filters += 1;
  ParsedFilter parsed;
  if (ParseFilter(filter.data(), filter.size(), &parsed)) {
    m->cuckoo_tables += parsed.kind == kCuckooPlainKind ||
                        parsed.kind == kCuckooSemiSortedKind;
    m->small_form += parsed.kind == kSmallFormKind;
  }
  // Timed as LevelDB queries: key hashing, filter parsing and probing.
  size_t positives = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& k : absent) positives += policy.KeyMayMatch(k, filter);
  m->query_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m->false_positives += static_cast<double>(positives);
  m->queries += static_cast<double>(absent.size());
}

double Percent(const Measured& m) { return 100 * m.false_positives / m.queries; }
double NsPerQuery(const Measured& m) { return 1e9 * m.query_seconds / m.queries; }

}  // namespace

std::string BenchKey(uint64_t i, const std::string& style) {
  return style == "random" ? Format("%016llx", BenchMix(i)) : Format("%016llu", 2 * i);
}

std::string BenchAbsentKey(uint64_t i, const std::string& style) {
  return style == "random" ? Format("%016llx", BenchMix(i + (1ULL << 40)))
                           : Format("%016llu", 2 * i + 1);
}

void PrintSmallFilterTable(double bits_per_key, const std::string& style) {
  std::unique_ptr<const leveldb::FilterPolicy> leveldb_bloom(
      leveldb::NewBloomFilterPolicy(static_cast<int>(bits_per_key)));
  const auto bloom = NewLevelDBBloomFilterPolicy(bits_per_key);
  const auto cuckoo = NewLevelDBCuckooFilterPolicy(bits_per_key);
  printf("\n## Single filters of n keys (%s keys, %g bits/key, no database)\n\n",
         style.c_str(), bits_per_key);
  printf("| keys/filter | LevelDB bytes/key | LevelDB FPR | LevelDB ns/query | bloom bytes/key "
         "| bloom FPR | bloom ns/query | cuckoo bytes/key | cuckoo FPR | small form | cuckoo tables |\n");
  printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (uint64_t n : {1, 2, 5, 10, 20, 35, 50, 64, 100, 200, 500, 1000}) {
    Measured ldb, ours_bloom, ours_cuckoo;
    // 200k queries per cell: the standard error at an FPR of 1% is 0.02%.
    const uint64_t num_absent = std::max<uint64_t>(100, n);  // per filter
    const uint64_t num_filters = 200000 / num_absent;
    for (uint64_t f = 0; f < num_filters; ++f) {
      const uint64_t base = f * 2000;  // each filter its own range of keys
      std::vector<std::string> keys, absent;
      for (uint64_t i = base; i < base + n; ++i) keys.push_back(BenchKey(i, style));
      for (uint64_t i = base; i < base + num_absent; ++i) absent.push_back(BenchAbsentKey(i, style));
      std::sort(keys.begin(), keys.end());  // LevelDB passes keys sorted
      Measure(*leveldb_bloom, keys, absent, &ldb);
      Measure(*bloom, keys, absent, &ours_bloom);
      Measure(*cuckoo, keys, absent, &ours_cuckoo);
    }
    const double keys_total = static_cast<double>(n * num_filters);
    printf("| %llu | %.2f | %.2f%% | %.0f | %.2f | %.2f%% | %.0f | %.2f | %.2f%% | %.0f%% | %.0f%% |\n",
           static_cast<unsigned long long>(n), ldb.bytes / keys_total, Percent(ldb), NsPerQuery(ldb),
           ours_bloom.bytes / keys_total, Percent(ours_bloom), NsPerQuery(ours_bloom),
           ours_cuckoo.bytes / keys_total, Percent(ours_cuckoo),
           100 * (ours_bloom.small_form + ours_cuckoo.small_form) /
               (ours_bloom.filters + ours_cuckoo.filters),
           100 * ours_cuckoo.cuckoo_tables / ours_cuckoo.filters);
  }
  printf("\nLegend:\n"
         "- keys/filter: keys given to one CreateFilter call (LevelDB: those of the data\n"
         "  blocks starting in one 2 KiB range of the table, often 10 to 60).\n"
         "- bytes/key: filter bytes (sstfilter: payload and trailer, 2 or 3 bytes in the\n"
         "  small form, 8 otherwise) per key. sstfilter never exceeds LevelDB's bytes\n"
         "  (bits/key >= 7.5).\n"
         "- FPR: share of absent keys from the same key range that the filter passes.\n"
         "- ns/query: KeyMayMatch of an absent key as LevelDB calls it (key hashing,\n"
         "  filter checks, probe), single thread, filter in cache; a table read it saves\n"
         "  costs microseconds.\n"
         "- small form: share of both sstfilter policies' filters written in the small\n"
         "  form (Elias-Fano-coded fingerprints, 2- or 3-byte trailer; up to 1024 keys).\n"
         "- cuckoo tables: share of the cuckoo policy's filters that are cuckoo tables;\n"
         "  the rest are the small form or Bloom filters, whichever is expected to be\n"
         "  more accurate in the same bytes.\n");
}

}  // namespace sstfilter
