#include "bench_runner.h"

#include <cstdio>
#include <memory>
#include <sstream>

#include "checks.h"
#include "filter_set.h"
#include "filter_under_test.h"
#include "fpr_model.h"
#include "key_gen.h"
#include "progress.h"
#include "query_timer.h"
#include "workload.h"

namespace filter_bench {
namespace {

// Negative keys on which batched and single MayMatch must agree.
constexpr size_t kConsistencyQueries = size_t{1} << 16;

// Reports a doubt: on stderr at once and above the table; with --strict it
// ends the run.
void Warn(const BenchOptions& options, RunInfo* info, Progress* progress,
          const std::string& message) {
  progress->Say("WARNING: " + message);
  if (options.strict) Fail(message + " (--strict)");
  info->warnings.push_back(message);
}

std::string FormatFpr(double fpr) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g%%", fpr * 100);
  return buf;
}

// Builds one type's filters checking each for false negatives, measures
// the FPR and holds it to its bounds, and checks batched against single
// answers. Fills the untimed fields of *result; returns the filters' digest.
uint64_t Verify(const BenchOptions& options, const FilterUnderTest& test,
                const Workload& workload, const KeyMaker& maker,
                QueryPlan* consistency_plan, FilterResult* result,
                RunInfo* info, Progress* progress) {
  FilterSet set = BuildFilterSet(
      test, workload, maker, [&](size_t f, KeyBatch* keys, BuiltFilter* filter) {
        CheckNoFalseNegatives(test, f, keys, options.batch_size, filter);
      });
  result->filter = test.name();
  result->setting_bpk = test.bits_per_key();
  result->num_filters = workload.filters.size();
  result->num_keys = workload.total_keys;
  result->filter_bytes = set.bytes;
  result->fpr_queries = options.fpr_queries;
  result->false_positives =
      CountFalsePositives(&set, maker, options.fpr_queries, options.seed ^ 0xf9);
  result->expected_fpr = ExpectedFpr(test.name(), test.bits_per_key());
  result->fpr_bound = FprUpperBound(result->expected_fpr,
                                    options.fpr_bound_factor, options.fpr_queries);

  const double fpr = result->fpr();
  if (fpr > result->fpr_bound) {
    char factor[32];
    std::snprintf(factor, sizeof(factor), "%g", options.fpr_bound_factor);
    Warn(options, info, progress,
         Label(test) + ": FPR " + FormatFpr(fpr) + " is above its bound " +
             FormatFpr(result->fpr_bound) + " (" + factor + "x the expected " +
             FormatFpr(result->expected_fpr) +
             ", plus 4 sigma): the filter does not deliver what its bits/key "
             "should buy");
  }
  if (fpr < FprLowerBound(result->bits_per_key(), options.fpr_queries)) {
    Warn(options, info, progress,
         Label(test) + ": FPR " + FormatFpr(fpr) +
             " is below 2^-(bits/key), which no filter can reach: the "
             "measurement is wrong (keys not disjoint? size misreported?)");
  }
  const uint64_t disagreements = CountBatchDisagreements(&set, consistency_plan);
  if (disagreements > 0) {
    Warn(options, info, progress,
         Label(test) + ": batched MayMatch disagrees with single MayMatch on " +
             std::to_string(disagreements) + " of " +
             std::to_string(consistency_plan->size()) + " negative keys");
  }
  return set.digest;
}

// Work of a step in units of one query, for the progress estimate only: a
// key costs a few queries' time to make and add.
constexpr double kBuildPerKey = 4;
double CheckWork(const BenchOptions& options, const Workload& w) {
  constexpr double kChecksPerKey = 2;
  return w.total_keys * (kBuildPerKey + kChecksPerKey) + options.fpr_queries;
}
double BuildWork(const Workload& w) { return w.total_keys * kBuildPerKey; }
double QueryWork(const BenchOptions& options) {
  return 3.0 * options.timed_queries;  // three loops
}

}  // namespace

std::vector<FilterResult> RunBench(const BenchOptions& options, RunInfo* info) {
  const size_t num_types = options.filters.size();
  const KeyMaker maker(options.seed);
  std::vector<Workload> workloads;
  double total_work = 0;
  std::ostringstream described;
  for (double setting : options.settings) {
    workloads.push_back(
        options.sst_regime
            ? SstWorkload(setting, options.sst_total_mb, options.sst_keys_min,
                          options.sst_keys_max, options.seed ^ 0x557)
            : SingleFilterWorkload(options.num_keys));
    const Workload& w = workloads.back();
    total_work += num_types * (CheckWork(options, w) +
                               options.repeats * (BuildWork(w) + QueryWork(options)));
    described << "bpk " << setting << ": " << w.Describe() << ", " << kKeySize
              << "-byte keys.\n";
  }
  info->workloads = described.str();
  Progress progress(total_work);

  std::vector<FilterResult> all;
  for (size_t s = 0; s < options.settings.size(); ++s) {
    const Workload& workload = workloads[s];
    std::vector<std::unique_ptr<FilterUnderTest>> tests;
    for (const FilterChoice& choice : options.filters) {
      std::string error;
      const double bpk = choice.bpk > 0 ? choice.bpk : options.settings[s];
      tests.push_back(FilterUnderTest::Create(choice.name, bpk, &error));
      if (tests.back() == nullptr) Fail(choice.Text() + ": " + error);
    }

    // Every type answers the same queries.
    QueryPlan positive(workload, maker, QueryPlan::Keys::kPositive,
                       options.timed_queries, 1, options.seed ^ 0x905);
    QueryPlan negative(workload, maker, QueryPlan::Keys::kNegative,
                       options.timed_queries, 1, options.seed ^ 0x4e6);
    QueryPlan batched(workload, maker, QueryPlan::Keys::kNegative,
                      options.timed_queries, options.batch_size,
                      options.seed ^ 0xba7);
    QueryPlan consistency(workload, maker, QueryPlan::Keys::kNegative,
                          kConsistencyQueries, options.batch_size,
                          options.seed ^ 0xc0c);

    std::vector<FilterResult> results(num_types);
    std::vector<uint64_t> digests(num_types);
    for (size_t i = 0; i < num_types; ++i) {
      results[i].group = s;
      results[i].baseline = options.filters[i] == options.baseline;
      progress.Step("checking " + Label(*tests[i]), CheckWork(options, workload));
      digests[i] = Verify(options, *tests[i], workload, maker, &consistency,
                          &results[i], info, &progress);
    }

    for (int r = 0; r < options.repeats; ++r) {
      char repeat[96];
      std::snprintf(repeat, sizeof(repeat), "repeat %d/%d at %g bits/key",
                    r + 1, options.repeats, options.settings[s]);
      // Every type's filters live at once (sst regime: --sst_total_mb each)
      // so that builds and query slices can alternate between types.
      progress.Step(std::string(repeat) + ": building", num_types * BuildWork(workload));
      std::vector<FilterSet> sets =
          BuildFilterSetsInterleaved(tests, workload, maker, r);
      for (size_t i = 0; i < num_types; ++i) {
        results[i].build_ns.push_back(sets[i].build_seconds * 1e9 /
                                      workload.total_keys);
        if (sets[i].digest != digests[i] && results[i].deterministic) {
          results[i].deterministic = false;
          Warn(options, info, &progress,
               Label(*tests[i]) + ": rebuilding from the same keys gave "
                                  "different bytes");
        }
      }
      progress.Step(std::string(repeat) + ": querying", num_types * QueryWork(options));
      const QueryTiming pos = TimeSingleQueries(&sets, positive, r, options.fence_queries);
      const QueryTiming neg = TimeSingleQueries(&sets, negative, r, options.fence_queries);
      const QueryTiming bat = TimeBatchedQueries(&sets, &batched, r);
      for (size_t i = 0; i < num_types; ++i) {
        if (pos.hits[i] != positive.size()) {
          Fail("FALSE NEGATIVE while timing " + Label(*tests[i]) + ": " +
               std::to_string(positive.size() - pos.hits[i]) +
               " added keys not matched");
        }
        results[i].positive_ns.push_back(pos.ns[i]);
        results[i].negative_ns.push_back(neg.ns[i]);
        results[i].batched_ns.push_back(bat.ns[i]);
      }
    }
    all.insert(all.end(), results.begin(), results.end());
  }
  return all;
}

}  // namespace filter_bench
