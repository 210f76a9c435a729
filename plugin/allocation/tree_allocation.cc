#include "allocation/tree_allocation.h"

#include <algorithm>

#include "filters/planner.h"

namespace sstfilter {
namespace {

// A run of the tree: its keys, its files, and the level it stands for.
struct Run {
  double keys;
  double files;
  int level;
  bool is_new;  // the flushed file itself
};

// What a file of `keys_per_file` keys gets at `spec`: the small form where
// the builder would write it (NewFilterBuilder allows it).
double FprOf(const FilterSpec& spec, double keys_per_file) {
  const auto keys = static_cast<size_t>(std::max(1.0, keys_per_file));
  const FilterPlan own = PlanFilter(spec, keys);
  return WithSmallForm(own, keys, own.bytes).expected_fpr;
}

}  // namespace

FilterSpec PlanForTree(const FileFacts& file, const TreeShape& tree, const FilterSpec& budget) {
  if (file.level < 0) return budget;
  std::vector<Run> runs;
  for (double keys : tree.l0_file_keys) {
    if (keys > 0) runs.push_back({keys, 1, 0, false});
  }
  if (file.level == 0) {
    // A flushed file is not in the tree yet: one more run.
    if (file.num_keys == 0) return budget;
    runs.push_back({static_cast<double>(file.num_keys), 1, 0, true});
  }
  for (size_t lv = 1; lv < tree.level_keys.size(); ++lv) {
    if (!(tree.level_keys[lv] > 0)) continue;
    const double files = lv < tree.level_files.size() ? static_cast<double>(tree.level_files[lv]) : 1;
    runs.push_back({tree.level_keys[lv], std::max(files, 1.0), static_cast<int>(lv), false});
  }
  size_t mine = runs.size();
  for (size_t i = 0; i < runs.size(); ++i) {
    if (file.level == 0 ? runs[i].is_new : runs[i].level == file.level) mine = i;
  }
  // A level not in the tree yet (the first files of a new level), or a
  // tree of one run: nothing to trade between runs.
  if (mine == runs.size() || runs.size() < 2) return budget;

  double total = 0;
  for (const Run& r : runs) total += r.keys;
  std::vector<RunClass> classes;
  for (const Run& r : runs) classes.push_back({r.keys / total, 1});
  const std::vector<LevelFilter> plan = SolveAllocation(*SharedFprCurve(budget), classes);

  // Rated at each run's own file size: the curve is a large file's.
  double monkey = 0, uniform = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const double keys_per_file = runs[i].keys / runs[i].files;
    const LevelFilter& f = plan[i];
    double fpr = FprOf(f.spec, keys_per_file);
    if (f.upper_fraction > 0) {
      fpr += f.upper_fraction * (FprOf(f.upper_spec, keys_per_file) - fpr);
    }
    monkey += fpr;
    uniform += FprOf(budget, keys_per_file);
    }
  if (!(monkey < uniform)) return budget;

  return plan[mine].SpecForFirstKey(file.first_key);
}

}  // namespace sstfilter
