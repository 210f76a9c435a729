// How often a lookup probes a sorted run that covers part of the key range.
//
// A point lookup probes a level's filter only where one of the level's files
// holds the key in its [smallest, largest] range, and an L0 file's only
// within its own range. A level left with a few files by a partial
// compaction or a trivial move is therefore probed by a share of the
// lookups, and its filter's false positives cost that share of what they
// would cost a run over the whole key range. Monkey's optimum then makes
// each run's FPR proportional to its keys over its probe share (its key
// density), not to its keys alone (docs/design/level_allocation.md).
//
// Engine-free: keys are user keys compared bytewise.

#pragma once

#include <string>
#include <vector>

namespace sstfilter {

// One file: its least and greatest user key, and its keys (entries).
struct FileRange {
  std::string smallest, largest;
  double keys = 0;
};

// The share of lookups, drawn as the keys of `reference` are (a level's
// files in key order, not overlapping: usually the bottom level, which
// holds most keys), whose key lies in at least one of `ranges` (in any
// order; they may overlap). Within a reference file keys are taken as
// evenly spread over the numeric value of the 8 bytes that follow the
// file's two ends' common prefix. Keys of `ranges` outside the reference's
// span count for nothing. In [0, 1]; 1 where `reference` holds no key.
double ProbeShare(const std::vector<FileRange>& reference, const std::vector<FileRange>& ranges);

// The same, given ReferenceKeys(reference): for many calls on one
// reference, each then costs a binary search of it and the files `ranges`
// meet, not a pass over all of it.
double ProbeShare(const std::vector<FileRange>& reference, double reference_keys,
                  const std::vector<FileRange>& ranges);
// The keys of `reference`'s files, negative counts as none.
double ReferenceKeys(const std::vector<FileRange>& reference);

// The probe share a run is planned at: `share` (ProbeShare's), never below
// the run's share of the tree's keys, `keys` of `total_keys`, for a run's
// keys are among the lookups' keys too (also where they lie outside the
// reference's span); never above 1.
double PlannedProbeShare(double share, double keys, double total_keys);

}  // namespace sstfilter
