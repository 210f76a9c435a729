// filter_bench: sstfilter's filters against RocksDB's built-ins, through
// RocksDB's own filter interfaces. See --help, or the legend under the
// table, for what each column means.
//
//   filter_bench --filters=bloom,cuckoo,rocksdb_bloom --bits_per_key=10,16
//   filter_bench --mode=sst
//   filter_bench --sweep --csv=docs/charts/filter_sweep_single.csv

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gflags/gflags.h>
#include <rocksdb/version.h>

#include "bench_runner.h"
#include "filter_under_test.h"
#include "query_timer.h"
#include "report.h"

DEFINE_string(filters, "bloom,cuckoo,cuckoo_plain,cuckoo_semisorted,fuse,rocksdb_bloom,rocksdb_ribbon",
              "Comma-separated filters to measure (the Filters list in --help), "
              "each optionally name@bpk to run it at that bits/key instead of "
              "the run's setting (to compare at equal FPR).");
DEFINE_string(baseline, filter_bench::kBaselineFilter,
              "The filter every ratio is against (name or name@bpk, as in "
              "--filters); added to --filters if missing.");
DEFINE_string(bits_per_key, "10",
              "Comma-separated bits/key settings, e.g. 10,12,16 (for "
              "rocksdb_ribbon, the Bloom-equivalent setting).");
DEFINE_string(mode, "single",
              "single: one filter of --num_keys keys. sst: many SST-sized "
              "filters, queries out of cache.");
DEFINE_uint64(num_keys, 1000000, "Keys in the filter (single mode).");
DEFINE_uint64(sst_keys_min, 10000, "Fewest keys per filter (sst mode).");
DEFINE_uint64(sst_keys_max, 100000, "Most keys per filter (sst mode).");
DEFINE_double(sst_total_mb, 64,
              "sst mode: add filters until keys * bits_per_key / 8 reaches "
              "this many MB (keep it above the last-level cache size). Every "
              "filter type's filters are held at once, so memory is about "
              "this times the number of filter types.");
DEFINE_uint64(fpr_queries, 10000000,
              "Negative queries for each FPR measurement (at 0.01% FPR, 10M "
              "queries see 1000 false positives: about +-3%).");
DEFINE_uint64(queries, 1000000, "Queries timed per figure per repeat.");
DEFINE_int32(batch_size, 32, "Keys per batched MayMatch call.");
DEFINE_int32(repeats, 5, "Timed repeats; the table shows medians.");
DEFINE_bool(sweep, false,
            "Measure every setting from --sweep_min to --sweep_max by "
            "--sweep_step instead of --bits_per_key.");
DEFINE_double(sweep_min, 6, "First bits/key setting of --sweep.");
DEFINE_double(sweep_max, 24, "Last bits/key setting of --sweep.");
DEFINE_double(sweep_step, 2, "Step between --sweep settings.");
DEFINE_string(csv, "", "Also write the results as CSV to this file.");
DEFINE_double(fpr_bound_factor, 1.5,
              "An FPR above this many times the textbook expectation for the "
              "filter's kind (plus 4 sigma) is a WARNING (an error with "
              "--strict).");
DEFINE_bool(fence_queries, false,
            "Diagnosis: put a fence (x86 lfence) after every single-key query, "
            "so that none overlaps the next and the pos/neg columns are "
            "latencies; without it they are the throughput of back-to-back "
            "queries, which the CPU overlaps. x86-64 only.");
DEFINE_bool(strict, false,
            "Abort instead of warning when a filter's FPR is out of bound, "
            "batched and single MayMatch disagree, or a rebuild differs.");
DEFINE_uint64(seed, 0x5eed, "Seed of keys, filter sizes and queries.");

DECLARE_bool(help);  // gflags' own, handled below

namespace filter_bench {
namespace {

constexpr bool kOptimizedBuild =
#if defined(NDEBUG) && defined(__OPTIMIZE__)
    true;
#else
    false;
#endif

[[noreturn]] void Usage(const std::string& message) {
  std::fprintf(stderr, "filter_bench: %s (see --help)\n", message.c_str());
  std::exit(1);
}

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

std::vector<double> Settings() {
  std::vector<double> settings;
  if (FLAGS_sweep) {
    if (!(FLAGS_sweep_step > 0) || FLAGS_sweep_min > FLAGS_sweep_max) {
      Usage("--sweep needs sweep_step > 0 and sweep_min <= sweep_max");
    }
    // Counted in steps so 6 + k * 0.1 rounding cannot drop the last one.
    const int steps = static_cast<int>(
        std::floor((FLAGS_sweep_max - FLAGS_sweep_min) / FLAGS_sweep_step + 1e-9));
    for (int k = 0; k <= steps; ++k) {
      settings.push_back(FLAGS_sweep_min + k * FLAGS_sweep_step);
    }
    return settings;
  }
  for (const std::string& s : SplitCommas(FLAGS_bits_per_key)) {
    double v = 0;
    if (!ParsePositiveNumber(s, &v)) {
      Usage("--bits_per_key: '" + s + "' is not a positive number");
    }
    settings.push_back(v);
  }
  if (settings.empty()) Usage("--bits_per_key is empty");
  return settings;
}

FilterChoice ChoiceFromFlag(const char* flag, const std::string& text) {
  FilterChoice choice;
  std::string error;
  if (!ParseFilterChoice(text, &choice, &error)) Usage(std::string(flag) + ": " + error);
  return choice;
}

// --filters, with the baseline added at the end if it is not there.
std::vector<FilterChoice> Filters(const FilterChoice& baseline) {
  std::vector<FilterChoice> filters;
  for (const std::string& text : SplitCommas(FLAGS_filters)) {
    filters.push_back(ChoiceFromFlag("--filters", text));
  }
  if (std::find(filters.begin(), filters.end(), baseline) == filters.end()) {
    std::fprintf(stderr, "filter_bench: adding %s, the baseline of every ratio\n",
                 baseline.Text().c_str());
    filters.push_back(baseline);
  }
  return filters;
}

BenchOptions OptionsFromFlags() {
  BenchOptions o;
  o.baseline = ChoiceFromFlag("--baseline", FLAGS_baseline);
  o.filters = Filters(o.baseline);
  o.settings = Settings();
  if (FLAGS_mode != "single" && FLAGS_mode != "sst") {
    Usage("--mode must be single or sst");
  }
  o.sst_regime = FLAGS_mode == "sst";
  o.num_keys = FLAGS_num_keys;
  o.sst_keys_min = FLAGS_sst_keys_min;
  o.sst_keys_max = FLAGS_sst_keys_max;
  o.sst_total_mb = FLAGS_sst_total_mb;
  o.fpr_queries = FLAGS_fpr_queries;
  o.timed_queries = FLAGS_queries;
  o.batch_size = FLAGS_batch_size;
  o.repeats = FLAGS_repeats;
  o.fpr_bound_factor = FLAGS_fpr_bound_factor;
  o.strict = FLAGS_strict;
  o.fence_queries = FLAGS_fence_queries;
  if (o.fence_queries && !filter_bench::CanFenceQueries()) {
    Usage("--fence_queries needs x86-64");
  }
  o.seed = FLAGS_seed;
  if (o.num_keys == 0) Usage("--num_keys must be positive");
  if (o.sst_keys_min == 0 || o.sst_keys_min > o.sst_keys_max) {
    Usage("need 0 < --sst_keys_min <= --sst_keys_max");
  }
  if (!(o.sst_total_mb > 0)) Usage("--sst_total_mb must be positive");
  if (o.fpr_queries == 0 || o.timed_queries == 0) {
    Usage("--fpr_queries and --queries must be positive");
  }
  if (o.batch_size < 1 || o.batch_size > 1024) Usage("--batch_size must be 1..1024");
  if (o.repeats < 1) Usage("--repeats must be at least 1");
  if (!(o.fpr_bound_factor >= 1)) Usage("--fpr_bound_factor must be >= 1");
  return o;
}

// --help shows this file's flags only: Debian's librocksdb registers the
// gflags of RocksDB's own tools, which gflags' --help would list too
// (--helpfull still does).
void PrintHelp(const std::string& usage) {
  std::printf("%s\nFlags:\n", usage.c_str());
  std::vector<gflags::CommandLineFlagInfo> flags;
  gflags::GetAllFlags(&flags);
  for (const gflags::CommandLineFlagInfo& flag : flags) {
    if (flag.filename != __FILE__) continue;
    std::printf("  --%s (default: %s)\n      %s\n", flag.name.c_str(),
                flag.default_value.c_str(), flag.description.c_str());
  }
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

std::string Machine() {
  std::ostringstream out;
  out << CpuModel() << ", RocksDB " << ROCKSDB_MAJOR << "." << ROCKSDB_MINOR
      << "." << ROCKSDB_PATCH << ", filter_bench built "
      << (kOptimizedBuild ? "optimized" : "WITHOUT optimization") << ".";
  return out.str();
}

}  // namespace
}  // namespace filter_bench

int main(int argc, char** argv) {
  using namespace filter_bench;
  const std::string usage =
      "Measures sstfilter's filters and RocksDB's built-ins through RocksDB's "
      "FilterBitsBuilder/FilterBitsReader.\nBefore timing, each filter is "
      "checked: any false negative aborts; an FPR out of bound warns (aborts "
      "with --strict).\nOutput: a markdown table on stdout (--csv for CSV), "
      "progress on stderr.\n\n  filter_bench --filters=cuckoo,rocksdb_bloom "
      "--bits_per_key=10,16\n  filter_bench --mode=sst\n  filter_bench "
      "--sweep --csv=docs/charts/filter_sweep_single.csv && "
      "tools/scripts/plot_filter_sweep.sh docs/charts/filter_sweep_single.csv\n\n";
  gflags::SetUsageMessage(usage);
  gflags::ParseCommandLineNonHelpFlags(&argc, &argv, true);
  if (FLAGS_help) {
    PrintHelp(usage + Legend(FLAGS_batch_size, FLAGS_baseline));
    return 0;
  }
  gflags::HandleCommandLineHelpFlags();  // --helpfull, --version, ...
  if (argc > 1) Usage(std::string("unexpected argument '") + argv[1] + "'");

  const BenchOptions options = OptionsFromFlags();
  RunInfo info;
  info.mode = FLAGS_mode;
  info.fpr_queries = options.fpr_queries;
  info.timed_queries = options.timed_queries;
  info.batch_size = options.batch_size;
  info.repeats = options.repeats;
  info.fenced = options.fence_queries;
  info.machine = Machine();
  info.baseline = options.baseline.Text();
  if (!kOptimizedBuild) {
    const char* warning =
        "filter_bench was built WITHOUT optimization (or with assertions): "
        "its times mean nothing. Configure with -DCMAKE_BUILD_TYPE=Release.";
    std::fprintf(stderr, "\nfilter_bench: WARNING: %s\n\n", warning);
    info.warnings.push_back(warning);
  }

  const std::vector<FilterResult> results = RunBench(options, &info);

  PrintMarkdown(info, results, std::cout);
  if (!FLAGS_csv.empty()) {
    std::ofstream csv(FLAGS_csv);
    WriteCsv(info, results, csv);
    if (!csv) {
      std::fprintf(stderr, "filter_bench: could not write %s\n", FLAGS_csv.c_str());
      return 1;
    }
  }
  gflags::ShutDownCommandLineFlags();
  return 0;
}
