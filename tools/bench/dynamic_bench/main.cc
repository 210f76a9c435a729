// dynamic_bench: the dynamic cuckoo filter (sstfilter/dynamic_cuckoo.h)
// against the static sstfilter cuckoo filter at the same FPR and against a
// classic power-of-two cuckoo filter (classic_cuckoo.h), measured in the
// same run. Prints markdown tables (tools/scripts/results.sh dynamic saves them as
// docs/results/dynamic_cuckoo.md) and, with --csv, the growth curve for
// tools/scripts/plot_dynamic_growth.sh. Progress goes to stderr.
//
//   dynamic_bench                      # growth 1,000 -> 100,000,000 keys
//   dynamic_bench --max_keys=1000000   # a quick run
//
// Every figure is checked before it is timed: no false negatives (a sample
// of inserted keys at every growth point, every key in the timed filters).

#include <gflags/gflags.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "query_passes.h"
#include "classic_cuckoo.h"
#include "filters/cuckoo_filter.h"
#include "filters/filter.h"
#include "format/hash.h"
#include "sstfilter/dynamic_cuckoo.h"

DEFINE_double(fpr, 0.001, "target FPR of the dynamic filter; the static filter gets the "
              "smallest bits/key whose expected FPR is at or below it");
DEFINE_uint64(initial, 1000, "initial_capacity of the growing dynamic filter");
DEFINE_uint64(max_keys, 100000000, "last size of the growth sweep");
DEFINE_uint64(fpr_queries, 1000000, "negative queries per FPR measurement");
DEFINE_uint64(in_cache_keys, 100000, "filter size for the in-cache timings");
DEFINE_uint64(out_cache_keys, 10000000, "filter size for the out-of-cache timings "
              "(at most --max_keys)");
DEFINE_uint64(timing_ops, 2000000, "queries / erases per timed loop");
DEFINE_int32(repeats, 3, "timed loops per figure; the median is reported");
DEFINE_string(csv, "", "write the growth sweep here as CSV");

namespace dynamic_bench {
namespace {

using sstfilter::DynamicStatus;

// ---- Growth sweep -----------------------------------------------------------

void GrowthSweep() {
  std::printf("## Growth %llu -> %llu keys, target FPR %g\n\n",
              static_cast<unsigned long long>(FLAGS_initial),
              static_cast<unsigned long long>(FLAGS_max_keys), FLAGS_fpr);
  std::printf("Dynamic: one filter grown by Insert from initial_capacity %llu. Static: "
              "sstfilter's cuckoo filter built for exactly n keys at the smallest budget "
              "whose expected FPR is <= the target. Classic: power-of-two table of 12-bit "
              "fingerprints sized for n (the textbook setting; its FPR is about 2x the "
              "target). FPR measured over %llu absent keys; a sample of inserted "
              "keys is checked for false negatives at every point.\n\n",
              static_cast<unsigned long long>(FLAGS_initial),
              static_cast<unsigned long long>(FLAGS_fpr_queries));
  std::printf("| keys | dynamic bits/key | static bits/key | ratio | classic pow2 bits/key "
              "| dynamic FPR | expected | target | dynamic MB |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  FILE* csv = FLAGS_csv.empty() ? nullptr : std::fopen(FLAGS_csv.c_str(), "w");
  if (!FLAGS_csv.empty() && csv == nullptr) Fail("cannot write " + FLAGS_csv);
  if (csv) std::fprintf(csv, "keys,dynamic_bits_per_key,static_bits_per_key,classic_bits_per_key,"
                             "dynamic_fpr,expected_fpr,target_fpr\n");
  auto f = NewDynamic(FLAGS_initial);
  std::vector<uint64_t> points;
  for (uint64_t decade = 1000; decade <= FLAGS_max_keys; decade *= 10) {
    for (uint64_t m : {1, 2, 5}) {
      if (decade * m <= FLAGS_max_keys && decade * m >= FLAGS_initial) points.push_back(decade * m);
    }
  }
  if (points.empty() || points.back() != FLAGS_max_keys) points.push_back(FLAGS_max_keys);
  uint64_t inserted = 0;
  double ratio_sum = 0, ratio_max = 0, fpr_max = 0;
  for (uint64_t n : points) {
    for (; inserted < n; ++inserted) {
      if (f->InsertHash(PosHash(inserted)) != DynamicStatus::kOk) Fail("insert failed");
    }
    const uint64_t step = std::max<uint64_t>(1, n / 100000);
    for (uint64_t i = 0; i < n; i += step) {
      if (!f->ContainsHash(PosHash(i))) Fail("false negative at " + std::to_string(i));
    }
    uint64_t fp = 0;
    for (uint64_t i = 0; i < FLAGS_fpr_queries; ++i) fp += f->ContainsHash(NegHash(i));
    const double fpr = static_cast<double>(fp) / static_cast<double>(FLAGS_fpr_queries);
    const double dyn_bpk = 8.0 * static_cast<double>(f->MemoryBytes()) / static_cast<double>(n);
    const double st_bpk = StaticBitsPerKey(n, StaticBitsPerKeySetting(n));
    const double classic_bpk =
        8.0 * static_cast<double>(ClassicCuckoo::BytesFor(n)) / static_cast<double>(n);
    const double ratio = dyn_bpk / st_bpk;
    ratio_sum += ratio;
    ratio_max = std::max(ratio_max, ratio);
    fpr_max = std::max(fpr_max, fpr);
    std::printf("| %llu | %.2f | %.2f | %.2fx | %.2f | %.4f%% | %.4f%% | %.4f%% | %.1f |\n",
                static_cast<unsigned long long>(n), dyn_bpk, st_bpk, ratio, classic_bpk,
                fpr * 100, f->ExpectedFpr() * 100, FLAGS_fpr * 100,
                static_cast<double>(f->MemoryBytes()) / 1e6);
    std::fflush(stdout);
    if (csv) std::fprintf(csv, "%llu,%.4f,%.4f,%.4f,%.6g,%.6g,%g\n",
                          static_cast<unsigned long long>(n), dyn_bpk, st_bpk, classic_bpk, fpr,
                          f->ExpectedFpr(), FLAGS_fpr);
    Say("growth: " + std::to_string(n) + " keys");
  }
  if (csv) std::fclose(csv);
  g_summary.ratio_max = ratio_max;
  g_summary.ratio_mean = ratio_sum / static_cast<double>(points.size());
  g_summary.fpr_max = fpr_max;
  std::printf("\nOver the %zu sizes: bits/key ratio dynamic/static max %.2fx (target <= 2.3x), "
              "mean %.2fx (target <= 1.8x); highest measured FPR %.4f%% (target %.4f%%).\n\n",
              points.size(), ratio_max, ratio_sum / static_cast<double>(points.size()),
              fpr_max * 100, FLAGS_fpr * 100);
}

// ---- Timings ----------------------------------------------------------------

void PrintRow(const Row& r) {
  auto cell = [](double v) {
    char b[32];
    if (std::isnan(v)) return std::string("-");
    std::snprintf(b, sizeof(b), "%.1f", v);
    return std::string(b);
  };
  std::printf("| %s | %s | %s | %s | %s | %s |\n", r.name.c_str(), cell(r.insert).c_str(),
              cell(r.pos).c_str(), cell(r.neg).c_str(), cell(r.erase).c_str(), cell(r.bpk).c_str());
}

// Out of cache a lookup's time follows the bytes it reaches into, so the
// dynamic filter is also compared with a static one of its own bytes.
void Timings(uint64_t n, const char* label, bool in_cache) {
  std::printf("## Timings, %s: %llu keys, ns/op (median of %d)\n\n", label,
              static_cast<unsigned long long>(n), FLAGS_repeats);
  std::printf("| filter | insert | positive lookup | negative lookup | erase | bits/key |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  const uint64_t erase_ops = std::min<uint64_t>(FLAGS_timing_ops, n / 2);
  // Every filter is built (inserts timed) and checked first; the lookups
  // are timed in passes over all of them (TimePasses), the erases last.
  const int kRows = in_cache ? 4 : 5;
  std::vector<Row> rows(kRows);
  std::vector<TimedRow> timed;
  const QueryHashes q = MakeQueryHashes(n);

  // Static sstfilter cuckoo at equal FPR: "insert" is its build time per key.
  Say("building static, " + std::to_string(n) + " keys");
  std::string st_bytes;
  rows[0].name = "static sstfilter.cuckoo (build)";
  {
    sstfilter::CuckooBuilder b(StaticBitsPerKeySetting(n), sstfilter::CuckooVariant::kAuto);
    rows[0].insert = NsPerOp(n, [&] {
      for (uint64_t i = 0; i < n; ++i) b.AddHash(PosHash(i));
      b.Finish(&st_bytes);
    });
  }
  auto st_reader = sstfilter::NewFilterReader(st_bytes.data(), st_bytes.size());
  for (uint64_t i = 0; i < n; ++i) {
    if (!st_reader->MayMatch(PosHash(i))) Fail("static: false negative");
  }
  rows[0].bpk = 8.0 * static_cast<double>(st_bytes.size()) / static_cast<double>(n);
  timed.emplace_back(&rows[0], Pass(&q, &rows[0].name,
                                  [r = st_reader.get()](uint64_t h) { return r->MayMatch(h); }));
  // Dynamic, sized for n (no growth step while timing inserts) and grown.
  std::unique_ptr<sstfilter::DynamicCuckooFilter> dynamic[2];
  for (int grown = 0; grown < 2; ++grown) {
    Say(std::string("building dynamic ") + (grown ? "grown" : "presized") + ", " +
        std::to_string(n) + " keys");
    auto& f = dynamic[grown];
    f = NewDynamic(grown ? FLAGS_initial : n);
    Row& r = rows[1 + grown];
    r.name = grown ? "dynamic, grown from --initial" : "dynamic, initial_capacity = n";
    r.insert = NsPerOp(n, [&] {
      for (uint64_t i = 0; i < n; ++i) {
        if (f->InsertHash(PosHash(i)) != DynamicStatus::kOk) Fail("dynamic insert");
      }
    });
    for (uint64_t i = 0; i < n; ++i) {
      if (!f->ContainsHash(PosHash(i))) Fail("dynamic: false negative");
    }
    r.bpk = 8.0 * static_cast<double>(f->MemoryBytes()) / static_cast<double>(n);
    timed.emplace_back(&r, Pass(&q, &r.name, [d = f.get()](uint64_t h) { return d->ContainsHash(h); }));
  }
  Say("building classic, " + std::to_string(n) + " keys");
  ClassicCuckoo c(n);
  rows[3].name = "classic pow2, 12-bit fp";
  rows[3].insert = NsPerOp(n, [&] {
    for (uint64_t i = 0; i < n; ++i) c.Insert(PosHash(i));
  });
  for (uint64_t i = 0; i < n; ++i) {
    if (!c.Contains(PosHash(i))) Fail("classic: false negative");
  }
  rows[3].bpk = 8.0 * static_cast<double>(c.MemoryBytes()) / static_cast<double>(n);
  timed.emplace_back(&rows[3], Pass(&q, &rows[3].name, [cc = &c](uint64_t h) { return cc->Contains(h); }));
  std::string same_bytes;
  std::unique_ptr<sstfilter::FilterReader> same_reader;
  if (!in_cache) {
    // A static filter of the grown dynamic filter's bytes.
    sstfilter::CuckooBuilder b(rows[2].bpk, sstfilter::CuckooVariant::kAuto);
    for (uint64_t i = 0; i < n; ++i) b.AddHash(PosHash(i));
    b.Finish(&same_bytes);
    same_reader = sstfilter::NewFilterReader(same_bytes.data(), same_bytes.size());
    rows[4].name = "static sstfilter.cuckoo, the grown dynamic filter's bytes";
    rows[4].bpk = 8.0 * static_cast<double>(same_bytes.size()) / static_cast<double>(n);
    timed.emplace_back(&rows[4], Pass(&q, &rows[4].name,
                                    [r = same_reader.get()](uint64_t h) { return r->MayMatch(h); }));
  }
  Say("timing lookups, " + std::to_string(n) + " keys");
  TimePasses(&timed);
  for (int grown = 0; grown < 2; ++grown) {
    auto& f = dynamic[grown];
    rows[1 + grown].erase = NsPerOp(erase_ops, [&] {
      for (uint64_t i = 0; i < erase_ops; ++i) {
        if (f->EraseHash(PosHash(i)) != DynamicStatus::kOk) Fail("dynamic erase");
      }
    });
    for (uint64_t i = erase_ops; i < n; i += 1 + n / 100000) {
      if (!f->ContainsHash(PosHash(i))) Fail("dynamic: false negative after erase");
    }
  }
  rows[3].erase = NsPerOp(erase_ops, [&] {
    for (uint64_t i = 0; i < erase_ops; ++i) c.Erase(PosHash(i));
  });
  for (const Row& r : rows) PrintRow(r);
  const Row& st = rows[0];
  const Row& one = rows[1];
  const Row& dyn = rows[2];
  const Row& classic = rows[3];
  // In cache against the static filter at equal FPR; out of cache against
  // the one of the same bytes.
  const Row& ref = in_cache ? st : rows[4];
  const double worst = std::max({dyn.pos / ref.pos, dyn.neg / ref.neg, one.pos / ref.pos,
                                 one.neg / ref.neg});
  (in_cache ? g_summary.lookup_in_cache : g_summary.lookup_out_of_cache) = worst;
  (in_cache ? g_summary.insert_mops_in : g_summary.insert_mops_out) = 1e3 / one.insert;
  if (!in_cache) {
    g_summary.load_ns_out = DependentLoadNs(static_cast<size_t>(one.bpk * n / 8));
    std::printf("\nOne dependent load through the same bytes (a pointer chase): %.1f ns; a "
                "single insert waits for at least one.\n",
                g_summary.load_ns_out);
  }
  std::printf("\nRatios (same run): dynamic (grown)/static at equal FPR positive lookup %.2fx, "
              "negative %.2fx; not grown %.2fx, %.2fx",
              dyn.pos / st.pos, dyn.neg / st.neg, one.pos / st.pos, one.neg / st.neg);
  if (!in_cache) {
    std::printf("; dynamic (grown)/static of the same bytes positive %.2fx, negative %.2fx; "
                "not grown %.2fx, %.2fx",
                dyn.pos / ref.pos, dyn.neg / ref.neg, one.pos / ref.pos, one.neg / ref.neg);
  }
  std::printf(" (target <= 1.5x); dynamic (grown)/classic positive %.2fx, negative %.2fx, "
              "erase %.2fx; dynamic inserts without growth %.1f M/s (target >= 5 M/s).\n\n",
              dyn.pos / classic.pos, dyn.neg / classic.neg, dyn.erase / classic.erase,
              1e3 / one.insert);
  std::fflush(stdout);
}

// Inserts near the load limit: a filter presized for n keys holds 95% load
// at n keys; the timed inserts take it from 89% to 95% (the regime a key
// guard works in after a rebuild), where most find both buckets full and
// the eviction search runs.
void HighLoadInserts(uint64_t n, const char* label) {
  const uint64_t from = n * 89 / 95;
  const double ns = Median([&] {
    auto f = NewDynamic(n);
    const size_t bytes = f->MemoryBytes();
    for (uint64_t i = 0; i < from; ++i) {
      if (f->InsertHash(PosHash(i)) != DynamicStatus::kOk) Fail("dynamic insert");
    }
    const double t = NsPerOp(n - from, [&] {
      for (uint64_t i = from; i < n; ++i) {
        if (f->InsertHash(PosHash(i)) != DynamicStatus::kOk) Fail("dynamic insert");
      }
    });
    if (f->MemoryBytes() != bytes) Fail("grew while timing");
    for (uint64_t i = 0; i < n; i += 1 + n / 100000) {
      if (!f->ContainsHash(PosHash(i))) Fail("dynamic: false negative at high load");
    }
    return t;
  });
  std::printf("Dynamic inserts from 89%% to 95%% load, %s (%llu keys, initial_capacity = n, "
              "no growth): %.1f ns/op, %.1f M/s (median of %d).\n\n",
              label, static_cast<unsigned long long>(n), ns, 1e3 / ns, FLAGS_repeats);
  std::fflush(stdout);
}

// Bulk inserts: InsertHashBatch over a presized filter's whole fill (0 to
// 95% load, as the table's insert column), hashes computed before timing.
void BatchInserts(uint64_t n, const char* label, bool in_cache) {
  std::vector<uint64_t> hashes(n);
  for (uint64_t i = 0; i < n; ++i) hashes[i] = PosHash(i);
  std::vector<DynamicStatus> statuses(n);
  const double ns = Median([&] {
    auto f = NewDynamic(n);
    const size_t bytes = f->MemoryBytes();
    const double t = NsPerOp(n, [&] { f->InsertHashBatch(hashes.data(), n, statuses.data()); });
    if (f->MemoryBytes() != bytes) Fail("grew while timing");
    for (DynamicStatus st : statuses) {
      if (st != DynamicStatus::kOk) Fail("dynamic batch insert");
    }
    for (uint64_t i = 0; i < n; i += 1 + n / 100000) {
      if (!f->ContainsHash(hashes[i])) Fail("dynamic: false negative after batch insert");
    }
    return t;
  });
  if (!in_cache) g_summary.batch_mops_out = 1e3 / ns;
  std::printf("Dynamic bulk inserts (InsertHashBatch), %s (%llu keys, initial_capacity = n, "
              "0 to 95%% load): %.1f ns/op, %.1f M/s (median of %d).\n\n",
              label, static_cast<unsigned long long>(n), ns, 1e3 / ns, FLAGS_repeats);
  std::fflush(stdout);
}

}  // namespace
}  // namespace dynamic_bench

int main(int argc, char** argv) {
  gflags::SetUsageMessage("dynamic cuckoo filter vs static and classic cuckoo filters");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
#if !defined(__OPTIMIZE__)
  std::printf("WARNING: unoptimised build: timings are meaningless\n\n");
#endif
  if (FLAGS_max_keys < FLAGS_initial || FLAGS_initial == 0) {
    std::fprintf(stderr, "need 0 < --initial <= --max_keys\n");
    return 1;
  }
  std::printf("Legend: keys are distinct 64-bit hashes; \"insert\" of the static filter is its "
              "build time per key; lookups are single queries on a hash (no key hashing), "
              "positives in random order; bits/key = allocated filter bytes * 8 / keys.\n\n");
  dynamic_bench::GrowthSweep();
  dynamic_bench::Timings(std::min(FLAGS_in_cache_keys, FLAGS_max_keys), "in cache", true);
  dynamic_bench::Timings(std::min(FLAGS_out_cache_keys, FLAGS_max_keys), "out of cache", false);
  dynamic_bench::HighLoadInserts(std::min(FLAGS_in_cache_keys, FLAGS_max_keys), "in cache");
  dynamic_bench::HighLoadInserts(std::min(FLAGS_out_cache_keys, FLAGS_max_keys), "out of cache");
  dynamic_bench::BatchInserts(std::min(FLAGS_in_cache_keys, FLAGS_max_keys), "in cache", true);
  dynamic_bench::BatchInserts(std::min(FLAGS_out_cache_keys, FLAGS_max_keys), "out of cache",
                              false);
  const auto& s = dynamic_bench::g_summary;
  auto holds = [](bool ok) { return ok ? "yes" : "**no**"; };
  std::printf("## Targets, growth %llu -> %llu keys at FPR %g\n\n",
              static_cast<unsigned long long>(FLAGS_initial),
              static_cast<unsigned long long>(FLAGS_max_keys), FLAGS_fpr);
  std::printf("| target | measured | holds |\n|---|---:|---|\n");
  std::printf("| FPR <= target at every size | max %.4f%% (target %.4f%%) | %s |\n",
              s.fpr_max * 100, FLAGS_fpr * 100, holds(s.fpr_max <= FLAGS_fpr));
  std::printf("| bits/key <= 2.3x static at every size | max %.2fx | %s |\n", s.ratio_max,
              holds(s.ratio_max <= 2.3));
  std::printf("| bits/key <= 1.8x static on average | mean %.2fx | %s |\n", s.ratio_mean,
              holds(s.ratio_mean <= 1.8));
  std::printf("| lookups in cache <= 1.5x static at equal FPR (grown or not) | worst %.2fx | %s |\n",
              s.lookup_in_cache, holds(s.lookup_in_cache <= 1.5));
  std::printf("| lookups out of cache <= 1.5x static of the same bytes (grown or not) | worst "
              "%.2fx | %s |\n",
              s.lookup_out_of_cache, holds(s.lookup_out_of_cache <= 1.5));
  std::printf("| inserts >= 5 M/s single in cache, outside growth | %.1f M/s | %s |\n",
              s.insert_mops_in, holds(s.insert_mops_in >= 5));
  std::printf("| inserts >= 5 M/s single out of cache, outside growth | %.1f M/s (one DRAM load: "
              "%.0f ns) | %s |\n",
              s.insert_mops_out, s.load_ns_out, holds(s.insert_mops_out >= 5));
  std::printf("| inserts >= 10 M/s batched (InsertHashBatch) out of cache | %.1f M/s | %s |\n",
              s.batch_mops_out, holds(s.batch_mops_out >= 10));
  return 0;
}
