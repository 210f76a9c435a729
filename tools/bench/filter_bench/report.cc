#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "filter_under_test.h"
#include "timing.h"

namespace filter_bench {
namespace {

// The figures of one row, medians over repeats, with ratios to baseline.
struct Row {
  double bits_per_key, fpr, build, positive, negative, batched;
};

Row Medians(const FilterResult& r) {
  return Row{r.bits_per_key(),        r.fpr(),
             Median(r.build_ns),      Median(r.positive_ns),
             Median(r.negative_ns),   Median(r.batched_ns)};
}

// Ratios to `base`; NaN (shown as "-") where there is none.
Row Ratios(const FilterResult& r, const FilterResult* base) {
  const double none = std::nan("");
  if (base == nullptr) return Row{none, none, none, none, none, none};
  auto ratio = [none](double a, double b) { return b > 0 ? a / b : none; };
  return Row{ratio(r.bits_per_key(), base->bits_per_key()),
             ratio(r.fpr(), base->fpr()),
             MedianRatio(r.build_ns, base->build_ns),
             MedianRatio(r.positive_ns, base->positive_ns),
             MedianRatio(r.negative_ns, base->negative_ns),
             MedianRatio(r.batched_ns, base->batched_ns)};
}

const FilterResult* BaselineFor(const FilterResult& r,
                                const std::vector<FilterResult>& results) {
  for (const FilterResult& b : results) {
    if (b.baseline && b.group == r.group) return &b;
  }
  return nullptr;
}

std::string Format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}

// " (1.05x)", or " (-)" without a ratio.
std::string RatioSuffix(double ratio) {
  return std::isfinite(ratio) ? Format(" (%.2fx)", ratio) : " (-)";
}

// "12.3 (1.05x)": the figure with its ratio to the baseline.
std::string Cell(const char* fmt, double value, double ratio) {
  return Format(fmt, value) + RatioSuffix(ratio);
}

// The fewest decimals that still show 3 significant digits of a percent.
std::string Percent(double fraction) {
  const double p = fraction * 100;
  if (p == 0) return "0";
  const int decimals = std::max(2, 2 - static_cast<int>(std::floor(std::log10(p))));
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, p);
  return buf;
}

std::string Setting(double bpk) { return Format("%g", bpk); }

}  // namespace

std::string Legend(int batch_size, const std::string& baseline) {
  std::ostringstream out;
  out << "Columns (every figure is followed by its ratio to " << baseline
      << " in the same group of rows (same keys and queries), measured in the "
         "same run; below 1.00x is better in every column; time ratios are "
         "medians of per-repeat ratios):\n"
         "  filter        which filter (see below)\n"
         "  bpk           the bits/key setting passed to the policy (the "
         "group's, or the one after @ in --filters)\n"
         "  bits/key      measured: filter bytes * 8 / keys, over all filters, "
         "metadata included\n"
         "  FPR %         false positives / negative queries, measured before "
         "timing on --fpr_queries keys never added (disjoint by construction)\n"
         "  build ns/key  time from GetBuilderWithContext through AddKey of "
         "every key to Finish, per key (key generation excluded)\n"
         "  pos ns        one MayMatch(key) of a key that was added\n"
         "  neg ns        one MayMatch(key) of a key that was not added (the "
         "case a filter exists for)\n"
         "  batch ns/key  MayMatch(" << batch_size << ", keys, results) on "
      << batch_size
      << " keys not added, all aimed at one filter as MultiGet does for one "
         "SST, per key\n"
         "Times are medians over --repeats. Within a repeat the filters take "
         "turns: builds alternate SST by SST, and each query loop runs in 16 "
         "slices with every filter's turn in each, so a busy machine slows "
         "all alike and the ratios hold. Before its turn in a slice a filter "
         "answers the previous slice's queries untimed, so it is timed in the "
         "cache state its own queries leave, not the one the filter before it "
         "left.\n"
         "Regimes: single = one filter of --num_keys keys (mostly in cache); "
         "sst = many filters of --sst_keys_min..max keys, enough keys that "
         "keys * bpk / 8 reaches --sst_total_mb MB, each query aimed at a "
         "random filter (out of cache, as across an LSM tree's SSTs).\n"
         "Filters:\n"
      << DescribeKnownFilters();
  return out.str();
}

void PrintMarkdown(const RunInfo& info, const std::vector<FilterResult>& results,
                   std::ostream& out) {
  out << "## filter_bench, " << info.mode << " regime\n\n";
  for (const std::string& w : info.warnings) out << "**WARNING: " << w << "**\n\n";
  out << info.workloads << "FPR from " << info.fpr_queries
      << " negative queries; times from " << info.timed_queries
      << " queries per figure, median of " << info.repeats << " repeats"
      << (info.fenced ? "; a fence after every single query (pos/neg ns "
                        "are latencies)"
                      : "")
      << ". " << info.machine << "\n\n";
  out << "| filter | bpk | bits/key | FPR % | build ns/key | pos ns | neg ns | "
         "batch ns/key |\n"
      << "|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const FilterResult& r : results) {
    const Row m = Medians(r);
    const Row x = Ratios(r, BaselineFor(r, results));
    out << "| " << r.filter << " | " << Setting(r.setting_bpk) << " | "
        << Cell("%.2f", m.bits_per_key, x.bits_per_key) << " | "
        << Percent(m.fpr) << RatioSuffix(x.fpr) << " | "
        << Cell("%.1f", m.build, x.build) << " | "
        << Cell("%.1f", m.positive, x.positive) << " | "
        << Cell("%.1f", m.negative, x.negative) << " | "
        << Cell("%.1f", m.batched, x.batched) << " |\n";
  }
  out << "\n" << Legend(info.batch_size, info.baseline);
}

void WriteCsv(const RunInfo& info, const std::vector<FilterResult>& results,
              std::ostream& out) {
  out << "mode,filter,bpk_setting,num_filters,num_keys,filter_bytes,"
         "bits_per_key,fpr_queries,false_positives,fpr,expected_fpr,fpr_bound,"
         "build_ns_per_key,positive_query_ns,negative_query_ns,"
         "batched_query_ns_per_key,bits_ratio,fpr_ratio,build_ratio,"
         "positive_ratio,negative_ratio,batched_ratio,repeats,batch_size,"
         "deterministic\n";
  for (const FilterResult& r : results) {
    const Row m = Medians(r);
    const Row x = Ratios(r, BaselineFor(r, results));
    char line[1024];
    std::snprintf(
        line, sizeof(line),
        "%s,%s,%g,%llu,%llu,%llu,%.4f,%llu,%llu,%.6g,%.6g,%.6g,%.3f,%.3f,%.3f,"
        "%.3f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%d,%d,%d\n",
        info.mode.c_str(), r.filter.c_str(), r.setting_bpk,
        static_cast<unsigned long long>(r.num_filters),
        static_cast<unsigned long long>(r.num_keys),
        static_cast<unsigned long long>(r.filter_bytes), m.bits_per_key,
        static_cast<unsigned long long>(r.fpr_queries),
        static_cast<unsigned long long>(r.false_positives), m.fpr,
        r.expected_fpr, r.fpr_bound, m.build, m.positive, m.negative,
        m.batched, x.bits_per_key, x.fpr, x.build, x.positive, x.negative,
        x.batched, info.repeats, info.batch_size, r.deterministic ? 1 : 0);
    out << line;
  }
}

}  // namespace filter_bench
