// filter_bench's results and how they are shown: a markdown table with a
// legend under it (stdout), and a CSV with one column per figure (for
// tools/scripts/plot_filter_sweep.sh).

#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace filter_bench {

// The measurements of one filter at one bits/key setting.
struct FilterResult {
  std::string filter;
  double setting_bpk = 0;  // the bits/key setting (Bloom-equivalent for Ribbon)
  size_t group = 0;        // index of the run's setting: same keys, same queries
  bool baseline = false;   // the row its group's ratios are against

  uint64_t num_filters = 0;
  uint64_t num_keys = 0;      // over all filters
  uint64_t filter_bytes = 0;  // over all filters, metadata included

  uint64_t fpr_queries = 0;
  uint64_t false_positives = 0;
  double expected_fpr = 0;  // fpr_model.h
  double fpr_bound = 0;     // highest FPR accepted

  // Did every timed build produce the same bytes as the checked one?
  bool deterministic = true;

  // One entry per repeat: ns per key (build, batched) or per query.
  std::vector<double> build_ns;
  std::vector<double> positive_ns;
  std::vector<double> negative_ns;
  std::vector<double> batched_ns;

  double bits_per_key() const {
    return num_keys ? 8.0 * filter_bytes / num_keys : 0;
  }
  double fpr() const {
    return fpr_queries ? static_cast<double>(false_positives) / fpr_queries : 0;
  }
};

// What the table's header says about the run.
struct RunInfo {
  std::string mode;        // "single" or "sst"
  std::string workloads;   // one line per bits/key setting
  uint64_t fpr_queries = 0;
  uint64_t timed_queries = 0;
  int batch_size = 0;
  int repeats = 0;
  bool fenced = false;     // --fence_queries: pos/neg are latencies
  std::string machine;     // CPU model, RocksDB version, build type
  std::string baseline;    // what the ratios are against (--baseline)
  std::vector<std::string> warnings;  // repeated above the table
};

// The column legend, for --help and under the table.
std::string Legend(int batch_size, const std::string& baseline);

// Table rows in `results` order, grouped by setting, each figure followed
// by its ratio to the baseline row of the same group.
void PrintMarkdown(const RunInfo& info, const std::vector<FilterResult>& results,
                   std::ostream& out);

// Header line plus one line per result; medians and ratios as in the table.
void WriteCsv(const RunInfo& info, const std::vector<FilterResult>& results,
              std::ostream& out);

}  // namespace filter_bench
