// Level-aware filter budgets over a tree that RocksDB describes exactly:
// its column family's files per level, as a listener reads them from the
// DB's metadata at every flush and compaction (rocksdb_adapter/level_listener.h).
// Engine-free: the tree comes in as numbers.
//
// Where the level model (level_model.h) infers the tree from the files the
// policy builds, this takes it as it is, whatever the level targets
// (static or dynamic level bytes), whatever happened before a reopen.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "allocation/level_allocation.h"
#include "allocation/level_model.h"
#include "allocation/probe_share.h"

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
  // Keys per level at the level's target size, [0] unused; 0 where unknown,
  // and for the bottom level. A level over its target (a compaction backlog)
  // is planned at its target: it will shrink to it, and its files, and the
  // bottom's, outlive the backlog.
  std::vector<double> level_target_keys;
  // The least and greatest user key of any file, bytewise; empty strings
  // in a tree of no files.
  std::string smallest_key, largest_key;
  // Per level, its files' ranges and keys: [0] L0's, in the order of
  // l0_file_keys; deeper levels' in key order. Empty where unknown: the
  // level's runs are then taken as probed by every lookup.
  std::vector<std::vector<FileRange>> level_ranges;
};

// What a run of `keys` keys in `files` files costs at `spec`: its files'
// bytes in all, and the expected FPR of one probe of it. The files are
// taken at kRunCostSamples sizes spread from 0.8 to 1.2 times their average:
// a single size would round as one file does, a step of a whole Bloom line
// or cuckoo bucket row for every file of the run at once, where a run's real
// files, of many sizes, round by about half a step each.
struct RunCost {
  double fpr = 0;
  double bytes = 0;
};
constexpr int kRunCostSamples = 9;
RunCost ExpectedRunCost(const FilterSpec& spec, double keys, double files);

// The filter for `file` in `tree` (taken just before the file's flush or
// compaction): Monkey's allocation (SolveAllocation) over the tree's runs.
//
// - Runs: every L0 file; a flushed file, or the first file of an empty
//   level, one more; each level L >= 1 settled, i.e. over its target size
//   it counts at its target and its excess in the next level down. The
//   largest run takes what the others leave.
// - Probes: a run is probed by the share of lookups whose key its files'
//   ranges hold (ProbeShare, lookups drawn as the largest level's keys),
//   never less than its share of the tree's keys; a run over a few
//   stretches of the key range gets fewer extra bits than one over all of
//   it. A file of a level above the largest run is planned at its own key
//   density, its keys over the share of lookups its own range takes, at
//   the multiplier the runs' plan settles on: a trivial move down keeps
//   that density, so the filter stays right where the file lands. Without
//   ranges (TreeShape::level_ranges empty), every run is probed by every
//   lookup and a file is planned as its level's run.
// - Bytes: the levels' files spend 1.000 to 1.002 times what the budget
//   gives them, their bytes planned at sizes around each run's average
//   (ExpectedRunCost); should no allocation land there, the least over it
//   that was found. L0 files, which the next L0 compaction removes, take
//   their extra bits on top, within 0.8% of the tree's budget, so that the
//   levels never pay for them: together at most 1% over it.
// - Appends: a flushed file whose keys all lie past either end of the
//   tree's (sequential inserts) is planned as a file of the bottom level:
//   RocksDB moves such files down without rewriting them. The ends are
//   compared bytewise, which holds for RocksDB's bytewise comparator and
//   its reverse; under another comparator a file may be planned for the
//   wrong level, which costs accuracy, never a key.
//
// The budget itself, for every file alike, where that is no worse: where the
// tree has under two runs, or where the planner (planner.h), rating each
// run's filter at its files' sizes, expects no fewer false positives per
// lookup than the budget gives every run (a filter whose FPR falls in
// coarse steps, as fuse and cuckoo fingerprints do, may gain nothing at
// small files). The bottom level's two sizes (LevelFilter) are chosen by
// the file's first key, so a file rebuilt from the same keys in the same
// tree gets the same filter. Deterministic: the same inputs give the same
// answer.
FilterSpec PlanForTree(const FileFacts& file, const TreeShape& tree, const FilterSpec& budget);

}  // namespace sstfilter
