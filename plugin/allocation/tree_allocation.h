// Level-aware filter budgets over a tree that RocksDB describes exactly:
// its column family's files per level, as a listener reads them from the
// DB's metadata at every flush and compaction (rocksdb/level_listener.h).
// Engine-free: the tree comes in as numbers.
//
// Where the level model (level_model.h) infers the tree from the files the
// policy builds, this takes it as it is, whatever the level targets
// (static or dynamic level bytes), whatever happened before a reopen.

#pragma once

#include <cstdint>
#include <vector>

#include "allocation/level_allocation.h"
#include "allocation/level_model.h"

namespace sstfilter {

// One column family's levelled tree, in keys per run.
struct TreeShape {
  // Each L0 file's keys: a sorted run of its own.
  std::vector<double> l0_file_keys;
  // Keys per level, [0] unused: each non-empty level L >= 1 is one run.
  std::vector<double> level_keys;
  // Files per level, [0] unused: a level's average file holds its keys
  // over its files.
  std::vector<uint64_t> level_files;
};

// The filter for `file` in `tree` (taken just before the file's flush or
// compaction), within `budget`'s bits/key on average over the tree:
// Monkey's allocation (SolveAllocation) over the tree's runs, a flushed L0
// file counted as one more run. The budget itself, for every file alike,
// where that is no worse: where the tree has under two runs, or where the
// planner (planner.h), rating each run's filter at its files' average key
// count, expects no fewer false positives per lookup than the budget gives
// every run (a filter whose FPR falls in coarse steps, as fuse and cuckoo
// fingerprints do, may gain nothing at small files). The bottom level's
// two sizes (LevelFilter) are chosen by the file's first key, so a file
// rebuilt from the same keys in the same tree gets the same filter.
FilterSpec PlanForTree(const FileFacts& file, const TreeShape& tree, const FilterSpec& budget);

}  // namespace sstfilter
