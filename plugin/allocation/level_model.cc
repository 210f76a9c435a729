#include "allocation/level_model.h"

#include <algorithm>


namespace sstfilter {
namespace {

// L0 files kept at most (RocksDB's default level0_stop_writes_trigger):
// beyond it the oldest are taken as gone, should the model miss their
// compaction.
constexpr size_t kMaxL0Files = 36;
// L0 runs counted at most (RocksDB's default level0_file_num_compaction_trigger).
constexpr size_t kL0Runs = 4;

bool Overlap(const std::string& a_first, const std::string& a_last,
             const std::string& b_first, const std::string& b_last) {
  return !(a_last < b_first || b_last < a_first);
}

}  // namespace

void LevelModel::Learn(const FileFacts& file) {
  const int level = file.level;
  if (live_.empty()) live_.resize(1);
  if (level == 0) {
    // L0 files overlap one another: each is a run of its own, until files
    // of a deeper level built after it cover its range (below).
    live_[0].push_back({file.first_key, file.last_key, file.num_keys, ++clock_});
    if (live_[0].size() > kMaxL0Files) live_[0].erase(live_[0].begin());
    return;
  }
  deepest_ = std::max(deepest_, level);
  if (live_.size() <= static_cast<size_t>(level)) live_.resize(level + 1);
  // Files of this level the new one overlaps are gone from it: merged into
  // it, or moved down earlier without a rewrite (a trivial move, which only
  // happens where the level below holds nothing of the range; there they
  // are still counted).
  std::vector<LiveFile> moved;
  auto& here = live_[level];
  here.erase(std::remove_if(here.begin(), here.end(),
                            [&](const LiveFile& f) {
                              if (!Overlap(f.first, f.last, file.first_key, file.last_key)) {
                                return false;
                              }
                              if (live_.size() <= static_cast<size_t>(level) + 1) return true;
                              for (const LiveFile& g : live_[level + 1]) {
                                if (Overlap(f.first, f.last, g.first, g.last)) return true;
                              }
                              moved.push_back(f);
                              return true;
                            }),
             here.end());
  here.push_back({file.first_key, file.last_key, file.num_keys, ++clock_});
  if (!moved.empty()) {
    live_[level + 1].insert(live_[level + 1].end(), moved.begin(), moved.end());
  }
  // Files of the levels above that this level has rewritten since they were
  // built: every file of here overlapping one is newer, and together they
  // reach past both its ends. Not only the level just above: a file RocksDB
  // moved down without rewriting it (a trivial move, frequent where the
  // level below is sparse) is still listed where it was built, and is
  // rewritten from its new level. (The same picture arises, rarely, where a
  // live file's whole range below it was compacted further down since it
  // was built; then its level is underestimated until it is rewritten.)
  for (int lv = 0; lv < level; ++lv) {
    auto& above = live_[lv];
    above.erase(
        std::remove_if(above.begin(), above.end(),
                       [&](const LiveFile& f) {
                         if (!Overlap(f.first, f.last, file.first_key, file.last_key)) {
                           return false;
                         }
                         bool covers_first = false, covers_last = false;
                         for (const LiveFile& g : here) {
                           if (!Overlap(f.first, f.last, g.first, g.last)) continue;
                           if (g.birth < f.birth) return false;
                           covers_first |= g.first <= f.first;
                           covers_last |= g.last >= f.last;
                         }
                         return covers_first && covers_last;
                       }),
        above.end());
  }
}

FilterSpec LevelModel::SpecFor(const FileFacts& file, const FilterSpec& budget) {
  if (file.level < 0 || file.num_keys == 0) return budget;
  std::lock_guard<std::mutex> lock(mu_);
  Learn(file);
  return Plan(file, budget);
}

FilterSpec LevelModel::PeekSpecFor(const FileFacts& file, const FilterSpec& budget) {
  if (file.level < 0 || file.num_keys == 0) return budget;
  std::lock_guard<std::mutex> lock(mu_);
  return Plan(file, budget);
}

FilterSpec LevelModel::Plan(const FileFacts& file, const FilterSpec& budget) {
  const int level = file.level;
  if (deepest_ == 0 || live_[deepest_].empty()) return budget;
  if (level >= 1 && level == deepest_ && !file.is_bottommost) return budget;

  std::vector<RunClass> runs;
  std::vector<int> run_level;
  double total = 0;
  auto add = [&](int lv, double keys, int count) {
    runs.push_back({keys, count});
    run_level.push_back(lv);
    total += keys * count;
  };
  if (!live_[0].empty()) {
    // The newest L0 files, at most RocksDB's default compaction trigger: a
    // file moved down without a rewrite (sequential keys move every one)
    // stays listed in L0 until a deeper file covers its range, which may
    // be never.
    const size_t files = std::min(live_[0].size(), kL0Runs);
    double keys = 0;
    for (size_t i = live_[0].size() - files; i < live_[0].size(); ++i) {
      keys += static_cast<double>(live_[0][i].keys);
    }
    add(0, keys / files, static_cast<int>(files));
  }
  for (int lv = 1; lv <= deepest_; ++lv) {
    double keys = 0;
    for (const LiveFile& f : live_[lv]) keys += static_cast<double>(f.keys);
    if (keys > 0) add(lv, keys, 1);
  }
  for (RunClass& r : runs) r.share /= total;
  const std::vector<LevelFilter> plan = SolveAllocation(*SharedFprCurve(budget), runs);
  for (size_t i = 0; i < plan.size(); ++i) {
    if (run_level[i] != level) continue;
    // The bottom level never takes more than the budget: where it looks
    // small next to the levels above, that is a backlog of compactions,
    // which passes, while its files stay. (In a settled tree the bottom is
    // the largest run and gets the fewest bits anyway.)
    if (level == deepest_ && plan[i].BitsPerKey() > budget.bits_per_key) return budget;
    // Likewise no level above it takes less: a level swollen by a backlog
    // is rewritten into the ones below soon.
    if (level < deepest_ && plan[i].spec.bits_per_key < budget.bits_per_key) return budget;
    // Which of the bottom's two sizes (LevelFilter): by the file's first
    // key, so rebuilding the same file gives the same filter.
    return plan[i].SpecForFirstKey(file.first_key);
  }
  return budget;
}

std::vector<double> LevelModel::LevelKeys() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<double> keys(std::max<size_t>(live_.size(), 1), 0.0);
  for (size_t lv = 0; lv < live_.size(); ++lv) {
    for (const LiveFile& f : live_[lv]) keys[lv] += static_cast<double>(f.keys);
  }
  return keys;
}

}  // namespace sstfilter
