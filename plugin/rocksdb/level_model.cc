#include "level_model.h"

#include <algorithm>

namespace sstfilter {
namespace {

void StoreMax(std::atomic<int>* a, int v) {
  int cur = a->load(std::memory_order_relaxed);
  while (v > cur && !a->compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

void StoreMin(std::atomic<int>* a, int v) {
  int cur = a->load(std::memory_order_relaxed);
  while (v < cur && !a->compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

}  // namespace

FilterSpec LevelModel::SpecFor(const rocksdb::FilterBuildingContext& context,
                               const FilterSpec& budget) {
  const int level = context.level_at_creation;
  if (level < 0 || context.compaction_style != rocksdb::kCompactionStyleLevel) return budget;
  if (level >= 1) {
    StoreMax(&deepest_, level);
    StoreMin(&shallowest_, level);
  }
  LevelShape shape;
  shape.bottom_level = deepest_.load(std::memory_order_relaxed);
  if (shape.bottom_level == 0) return budget;
  shape.base_level = std::min(shallowest_.load(std::memory_order_relaxed), shape.bottom_level);
  if (level >= 1 && !context.is_bottommost && level == shape.bottom_level) {
    // Data below this file's range: the bottom is deeper than any file
    // built so far (a trivial move put it there, or this is a reopen).
    shape.bottom_level = level + 1;
    if (context.num_levels > 0) {
      shape.bottom_level = std::min(shape.bottom_level, context.num_levels - 1);
    }
  }
  return PlanFor(budget, shape)->ForLevel(level).spec;
}

std::shared_ptr<const LevelPlan> LevelModel::PlanFor(const FilterSpec& budget,
                                                     const LevelShape& shape) {
  const auto key = std::make_tuple(static_cast<int>(budget.type), budget.bits_per_key,
                                   shape.base_level, shape.bottom_level);
  std::lock_guard<std::mutex> lock(mu_);
  auto& plan = plans_[key];
  if (!plan) plan = std::make_shared<const LevelPlan>(LevelPlan::Solve(budget, shape));
  return plan;
}

}  // namespace sstfilter
