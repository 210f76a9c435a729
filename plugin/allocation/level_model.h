// What a policy with allocation=monkey learns of the tree it builds files
// for, and each file's filter that follows (core/level_allocation.h).

#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "allocation/level_allocation.h"

namespace sstfilter {

// What a builder knows of its file when it finishes.
struct FileFacts {
  int level = -1;             // level_at_creation; -1 unknown
  bool is_bottommost = false;
  size_t num_keys = 0;        // distinct keys
  std::string first_key, last_key;
};

// Thread-safe; one per policy object, shared with its builders.
//
// Level sizes are learned from the files the policy builds: per level, the
// key ranges and key counts of the files believed live, whose sum is the
// level's estimate. A new file at level L >= 1 replaces every file of L its
// range overlaps (files of one level never overlap, so those are gone), and
// retires a file of any level above (L0 included) once files of L built after
// it overlap all of its range and reach past both its ends: it was compacted
// down, possibly after RocksDB moved it down without a rewrite (a trivial
// move, frequent where the level below is sparse; the filter keeps the size
// it was built with). L0 files are runs of their own, as many as are live, up
// to 4 (RocksDB's default trigger: L0 files moved down without a rewrite are
// never retired here). The bottom level never gets more than the budget and
// the levels above never less: during a compaction backlog the upper levels
// swell for a while, but the files built then stay. Nothing is stored: after
// a reopen the estimates start empty, a file gets the configured budget until
// the policy has built one in the deepest level it knows of, and until the
// levels are rebuilt the bottom level looks smaller than it is, which spends
// less than the budget, not more. A file in a level with data below that was
// never built gets the budget (docs/design/level_allocation.md).
class LevelModel {
 public:
  LevelModel() = default;
  LevelModel(const LevelModel&) = delete;
  LevelModel& operator=(const LevelModel&) = delete;

  // Learns from `file` and returns its filter, within `budget`'s average
  // over the tree as estimated.
  FilterSpec SpecFor(const FileFacts& file, const FilterSpec& budget);

  // The filter SpecFor would return for `file` now, learning nothing.
  FilterSpec PeekSpecFor(const FileFacts& file, const FilterSpec& budget);

  // Estimated keys per level, [0] all of L0; 0 where unknown.
  std::vector<double> LevelKeys() const;

 private:
  struct LiveFile {
    std::string first, last;
    size_t keys;
    uint64_t birth;  // order of building
  };
  void Learn(const FileFacts& file);  // requires mu_ held
  FilterSpec Plan(const FileFacts& file, const FilterSpec& budget);  // likewise

  mutable std::mutex mu_;
  uint64_t clock_ = 0;
  int deepest_ = 0;                        // 0: no file below L0 built yet
  std::vector<std::vector<LiveFile>> live_;  // per level
};

}  // namespace sstfilter
