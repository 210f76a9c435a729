#include "allocation/tree_allocation.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <memory>
#include <utility>

#include "filters/planner.h"

namespace sstfilter {
namespace {

// A run of the tree: its keys, its files, the level it stands for, and
// the share of lookups that probe it.
struct Run {
  double keys;
  double files;
  int level;
  bool is_new;  // the flushed file itself
  double probes;
};

RunCost CostOf(const LevelFilter& f, const Run& run) {
  RunCost cost = ExpectedRunCost(f.spec, run.keys, run.files);
  if (f.upper_fraction > 0) {
    const RunCost upper = ExpectedRunCost(f.upper_spec, run.keys, run.files);
    cost.fpr += f.upper_fraction * (upper.fpr - cost.fpr);
    cost.bytes += f.upper_fraction * (upper.bytes - cost.bytes);
  }
  return cost;
}

// The allocation solves for an average of nominal bits/key, but files are
// written in whole bytes, lines, buckets and segments, which round each
// size differently. So it is solved again, at most kSpendRounds times, its
// average corrected (then bisected) until the levels' files' bytes land
// within kSpendWindow above what the budget gives them.
constexpr int kSpendRounds = 12;
constexpr double kSpendWindow = 0.002;
// What L0 files may spend over the budget, as a share of the tree's bytes.
constexpr double kL0Allowance = 0.008;

}  // namespace

RunCost ExpectedRunCost(const FilterSpec& spec, double keys, double files) {
  RunCost cost;
  for (int i = 0; i < kRunCostSamples; ++i) {
    const double keys_per_file = keys / files * (0.8 + 0.4 * i / (kRunCostSamples - 1));
    const auto n = static_cast<size_t>(std::max(1.0, keys_per_file));
    // The small form where the builder would write it (NewFilterBuilder
    // allows it).
    const FilterPlan own = PlanFilter(spec, n);
    const FilterPlan plan = WithSmallForm(own, n, own.bytes);
    cost.fpr += plan.expected_fpr / kRunCostSamples;
    cost.bytes += static_cast<double>(plan.bytes) * files / kRunCostSamples;
  }
  return cost;
}

namespace {

// The tree's runs for planning `file`, which one is the file's (*mine),
// and the share of lookups `file` itself takes (*file_probes; 0 where no
// ranges are known); false if there is nothing to trade between runs
// (fewer than two, or a flush of no keys).
bool RunsFor(const FileFacts& file, const TreeShape& tree, std::vector<Run>* runs, size_t* mine,
             double* file_probes) {
  // Lookups are drawn as the largest level's keys, where its ranges are known.
  const std::vector<FileRange>* reference = nullptr;
  double reference_keys = 0;
  for (size_t lv = 1; lv < tree.level_keys.size() && lv < tree.level_ranges.size(); ++lv) {
    if (tree.level_keys[lv] > reference_keys && !tree.level_ranges[lv].empty()) {
      reference = &tree.level_ranges[lv];
      reference_keys = tree.level_keys[lv];
    }
  }
  const double reference_total = reference != nullptr ? ReferenceKeys(*reference) : 0;
  const auto probes = [reference, reference_total](const std::vector<FileRange>& ranges) {
    return reference != nullptr && !ranges.empty() ? ProbeShare(*reference, reference_total, ranges)
                                                   : 1.0;
  };
  const std::vector<FileRange> none;
  const std::vector<FileRange>& l0 = tree.level_ranges.empty() ? none : tree.level_ranges[0];
  const bool l0_ranges = l0.size() == tree.l0_file_keys.size();
  for (size_t i = 0; i < tree.l0_file_keys.size(); ++i) {
    const double keys = tree.l0_file_keys[i];
    if (keys > 0) runs->push_back({keys, 1, 0, false, l0_ranges ? probes({l0[i]}) : 1.0});
  }
  const std::vector<FileRange> own = {FileRange{file.first_key, file.last_key, 0}};
  if (file.level == 0) {
    // A flushed file is not in the tree yet: one more run.
    if (file.num_keys == 0) return false;
    runs->push_back({static_cast<double>(file.num_keys), 1, 0, true, probes(own)});
  }
  // The tree settled: what a level holds over its target moves down to the
  // next non-empty level, in files of the same size (over the ranges of
  // both).
  size_t deepest = 0;
  for (size_t lv = 1; lv < tree.level_keys.size(); ++lv) {
    if (tree.level_keys[lv] > 0) deepest = lv;
  }
  double excess = 0, excess_files = 0;
  std::vector<FileRange> excess_ranges;
  for (size_t lv = 1; lv <= deepest; ++lv) {
    if (!(tree.level_keys[lv] > 0)) continue;
    const double listed = lv < tree.level_files.size() ? static_cast<double>(tree.level_files[lv]) : 1;
    double keys = tree.level_keys[lv] + excess;
    double files = std::max(listed, 1.0) + excess_files;
    // The level's ranges, with the excess from above where there is one
    // (copied only then: a level may list thousands of files).
    const std::vector<FileRange>& listed_ranges =
        lv < tree.level_ranges.size() ? tree.level_ranges[lv] : none;
    std::vector<FileRange> with_excess;
    if (!excess_ranges.empty()) {
      with_excess = listed_ranges;
      with_excess.insert(with_excess.end(), excess_ranges.begin(), excess_ranges.end());
    }
    const std::vector<FileRange>& ranges = excess_ranges.empty() ? listed_ranges : with_excess;
    // Unknown ranges anywhere in the run: probed by every lookup.
    const bool known = !listed_ranges.empty() && (excess == 0 || !excess_ranges.empty());
    excess = excess_files = 0;
    excess_ranges.clear();
    const double target = lv < tree.level_target_keys.size() ? tree.level_target_keys[lv] : 0;
    if (lv < deepest && target > 0 && target < keys) {
      excess = keys - target;
      excess_files = files * excess / keys;
      files -= excess_files;
      keys = target;
      excess_ranges = ranges;
    }
    runs->push_back({keys, std::max(files, 1.0), static_cast<int>(lv), false,
                     known ? probes(ranges) : 1.0});
  }
  *mine = runs->size();
  for (size_t i = 0; i < runs->size(); ++i) {
    if (file.level == 0 ? (*runs)[i].is_new : (*runs)[i].level == file.level) *mine = i;
  }
  if (*mine == runs->size()) {
    // A level not in the tree yet (a compaction into an empty level): it
    // will be a run, of at least this file's keys, in level order.
    if (file.num_keys == 0) return false;
    size_t at = 0;
    while (at < runs->size() && ((*runs)[at].level == 0 || (*runs)[at].level < file.level)) ++at;
    runs->insert(runs->begin() + static_cast<std::ptrdiff_t>(at),
                 Run{static_cast<double>(file.num_keys), 1, file.level, false, probes(own)});
    *mine = at;
  }
  if (runs->size() < 2) return false;
  double total = 0;
  for (const Run& r : *runs) total += r.keys;
  for (Run& r : *runs) r.probes = PlannedProbeShare(r.probes, r.keys, total);
  *file_probes = reference == nullptr
                     ? 0
                     : PlannedProbeShare(probes(own), static_cast<double>(file.num_keys), total);
  // SolveAllocation's last class takes what the others leave: the largest
  // run, usually the bottom level (not always: a level above may hold more
  // where the last one is only starting to fill).
  size_t largest = 0;
  for (size_t i = 1; i < runs->size(); ++i) {
    if ((*runs)[i].keys > (*runs)[largest].keys) largest = i;
  }
  // Every other level whose files are known is planned as its files are:
  // in groups of about one key density (an eighth of an e-fold apart), each
  // group its files' keys and probe shares, scaled as the level's run is
  // (settled). Planned at one density, a level whose files differ in it
  // would spend more than its files do (the log-sum inequality), and the
  // tree would end under budget.
  std::vector<Run> planned;
  size_t planned_mine = 0;
  for (size_t i = 0; i < runs->size(); ++i) {
    if (i == largest) continue;
    const Run& run = (*runs)[i];
    const auto lv = static_cast<size_t>(run.level);
    const std::vector<FileRange>* files =
        run.level > 0 && reference != nullptr && lv < tree.level_ranges.size() &&
                !tree.level_ranges[lv].empty()
            ? &tree.level_ranges[lv]
            : nullptr;
    double held = 0;
    if (files != nullptr) {
      for (const FileRange& f : *files) held += std::max(f.keys, 0.0);
    }
    if (i == *mine) planned_mine = planned.size();
    if (!(held > 0)) {
      planned.push_back(run);
      continue;
    }
    const double scale = run.keys / held;
    std::map<long, Run> groups;
    for (const FileRange& f : *files) {
      if (!(f.keys > 0)) continue;
      const double p = PlannedProbeShare(probes({f}), f.keys, total);
      Run& group = groups.emplace(std::lround(8 * std::log(f.keys / p)), Run{0, 0, run.level, false, 0})
                       .first->second;
      group.keys += scale * f.keys;
      group.files += scale;
      group.probes += scale * p;
    }
    for (const auto& group : groups) planned.push_back(group.second);
  }
  if (*mine == largest) planned_mine = planned.size();
  planned.push_back((*runs)[largest]);
  *runs = std::move(planned);
  *mine = planned_mine;
  return true;
}

}  // namespace

FilterSpec PlanForTree(const FileFacts& flushed_or_compacted, const TreeShape& tree,
                       const FilterSpec& budget) {
  FileFacts file = flushed_or_compacted;
  if (file.level < 0) return budget;
  if (file.level == 0 && !tree.largest_key.empty() &&
      (file.first_key > tree.largest_key || file.last_key < tree.smallest_key)) {
    // An append: it moves down whole, to the bottom level.
    for (size_t lv = tree.level_keys.size(); lv-- > 1;) {
      if (tree.level_keys[lv] > 0) {
        file.level = static_cast<int>(lv);
        break;
      }
    }
  }
  std::vector<Run> runs;
  size_t mine = 0;
  double file_probes = 1;
  if (!RunsFor(file, tree, &runs, &mine, &file_probes)) return budget;

  double total = 0;
  for (const Run& r : runs) total += r.keys;
  // A file of a level above the largest is planned at its own key density,
  // its keys over the share of lookups its range takes, at the tree's
  // multiplier: as a class of its own that spends nothing (it is in its
  // level's run). A trivial move down leaves its density as it was, and a
  // level's files differ in it where compactions moved some of them down.
  const bool by_density = file.level > 0 && mine + 1 < runs.size() && file_probes > 0;
  std::vector<RunClass> classes;
  if (by_density) classes.push_back({static_cast<double>(file.num_keys) / total, 0, file_probes});
  const size_t first = classes.size();
  for (const Run& r : runs) classes.push_back({r.keys / total, 1, r.probes});

  // L0 files last until the next L0 compaction, the levels far longer, so
  // the levels alone spend what the budget gives them (the window below),
  // and L0 files take their extra bits on top, up to kL0Allowance of the
  // tree's budget: a tree whose L0 has just been compacted away is not
  // left under budget. (A tree of L0 files alone balances them instead.)
  LevelFilter same;
  same.spec = budget;
  RunCost uniform_l0, uniform_levels;
  double l0_keys = 0;
  for (const Run& r : runs) {
    const RunCost c = CostOf(same, r);
    RunCost& part = r.level == 0 ? uniform_l0 : uniform_levels;
    part.fpr += r.probes * c.fpr;
    part.bytes += c.bytes;
    if (r.level == 0) l0_keys += r.keys;
  }
  const bool levels = uniform_levels.bytes > 0;
  const double balanced = levels ? uniform_levels.bytes : uniform_l0.bytes;
  const double l0_cap_bits =
      budget.bits_per_key +
      (l0_keys > 0 ? 8 * kL0Allowance * (uniform_l0.bytes + uniform_levels.bytes) / l0_keys : 0);

  const std::shared_ptr<const FprCurve> curve = SharedFprCurve(budget);
  double bits = budget.bits_per_key;
  double under = 0, over = 0;  // bits known to spend too little, too much
  // The least spend over the window seen, should no round land in it.
  double best_spend = 0;
  FilterSpec best = budget;
  for (int round = 0; round < kSpendRounds; ++round) {
    std::vector<LevelFilter> plan = SolveAllocation(*curve, classes, bits);
    double fpr = 0, bytes = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      LevelFilter& run_plan = plan[first + i];
      FprCurve::Point capped;
      if (runs[i].level == 0 && levels && run_plan.BitsPerKey() > l0_cap_bits &&
          curve->BestAt(l0_cap_bits, &capped)) {
        run_plan = LevelFilter();
        run_plan.spec = FilterSpec{capped.type, capped.bits};
      }
      const RunCost c = CostOf(run_plan, runs[i]);
      fpr += runs[i].probes * c.fpr;
      if (runs[i].level != 0 || !levels) bytes += c.bytes;
    }
    const double spend = bytes / balanced;
    // Rated at each run's own file sizes (the curve is a large file's):
    // where that is no better than the budget everywhere, keep the budget.
    const FilterSpec spec = fpr < uniform_l0.fpr + uniform_levels.fpr
                                ? plan[by_density ? 0 : first + mine].SpecForFirstKey(file.first_key)
                                : budget;
    if (spend >= 1 && spend <= 1 + kSpendWindow) return spec;
    if (spend > 1 && (best_spend == 0 || spend < best_spend)) {
      best_spend = spend;
      best = spec;
    }
    (spend < 1 ? under : over) = bits;
    bits = under > 0 && over > 0 ? 0.5 * (under + over) : bits * (1 + kSpendWindow / 2) / spend;
  }
  return best;
}

}  // namespace sstfilter
