// What a policy with allocation=monkey learns of the tree it builds files
// for, and the per-file filter that follows (core/level_allocation.h).

#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include <rocksdb/filter_policy.h>

#include "../core/level_allocation.h"

namespace sstfilter {

// Thread-safe; one per policy object. The shape is learned from the
// contexts RocksDB passes to GetBuilderWithContext: the deepest and the
// shallowest level below L0 that files were built for (is_bottommost = false
// at the deepest level known says there is one more below). Nothing is
// stored: after a reopen the policy knows nothing until the first
// compaction builds a file, and until then every file gets the configured
// budget. A level that empties later (the tree shrank) is still counted.
class LevelModel {
 public:
  LevelModel() = default;
  LevelModel(const LevelModel&) = delete;
  LevelModel& operator=(const LevelModel&) = delete;

  // The filter for the file `context` describes, within `budget`'s
  // average. `budget` itself where the level is unknown (-1: SstFileWriter
  // and other files outside the tree), where nothing has been learned yet,
  // and for compaction styles other than levelled (FIFO: every file is
  // alike; universal: the context does not say a run's size).
  FilterSpec SpecFor(const rocksdb::FilterBuildingContext& context, const FilterSpec& budget);

  // The plan in use for `shape` at `budget` (solved once, then kept).
  std::shared_ptr<const LevelPlan> PlanFor(const FilterSpec& budget, const LevelShape& shape);

 private:
  std::atomic<int> deepest_{0};      // 0: no file below L0 built yet
  std::atomic<int> shallowest_{1 << 20};
  std::mutex mu_;                    // guards plans_
  std::map<std::tuple<int, double, int, int>, std::shared_ptr<const LevelPlan>> plans_;
};

}  // namespace sstfilter
