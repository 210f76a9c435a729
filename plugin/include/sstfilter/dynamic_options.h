// The dynamic cuckoo filter's options, statuses and limits
// (dynamic_cuckoo.h, which includes this): plain values, apart from the
// filter's class so that the engine under it can name them without
// naming the class it serves.

#pragma once

#include <cstdint>

namespace sstfilter {

enum class DynamicStatus {
  kOk,
  kTooManyCopies,    // Insert: this key (its fingerprint pair) already holds the
                     // maximum number of copies; nothing changed, the key matches.
  kNotFound,         // Erase in checked mode: the key was never inserted (or already
                     // fully erased); nothing changed.
  kFull,             // Insert: the table growth needs is past the size limit (2^41
                     // slots) or could not be mapped (no memory); Create: the same
                     // for the first table. Nothing changed, every earlier key
                     // still matches.
  kCorrupt,          // Load: damaged, truncated or foreign bytes.
  kInvalidArgument,  // bad options.
  kReadOnly,         // Insert/Erase on a filter loaded from format version 1, 2 or 3;
                     // nothing changed.
};
const char* DynamicStatusName(DynamicStatus s);

struct DynamicCuckooOptions {
  double target_fpr = 0.001;        // FPR kept at or below this at every size
  uint64_t initial_capacity = 1024; // keys before the first growth step
  bool checked = false;             // tests: detect Erase of a key not inserted
                                    // (costs memory; never use in production)
  // The size the filter is planned to reach (0: initial_capacity * 2^17,
  // about 1,000 -> 131,000,000). The FPR target is shared among the splits
  // up to this size (15/16 of it) and the rest kept for growth beyond.
  // Beyond this size the filter still grows and keeps the target (Limits,
  // dynamic_cuckoo.h). At most 2^40.
  uint64_t expected_max_keys = 0;
  // The first member (the filter's one table; the name is from the
  // doubling format, whose later tables were members too): its share of
  // target_fpr for the planned growth (instead of 15/16) and its load
  // limit at every bucket width (instead of 95%). A larger share buys
  // shorter fingerprints, and a lower load limit fewer inserts that must
  // evict: for a filter sized for the keys it will mostly hold (the key
  // guard's). 0: the default. Share in (0, 1); load in [0.5, 0.95].
  double first_member_fpr_share = 0;
  double first_member_max_load = 0;
  // The format the filter is built in and Save writes: 0 or 5 (one
  // table that grows by widening its buckets and splitting them;
  // docs/design/dynamic_cuckoo.md). Versions 1 to 3 are no longer
  // written: Create returns kInvalidArgument for them. A filter Load read
  // from version 1, 2 or 3 reports that version here (and is read-only).
  uint32_t format_version = 0;
};

// Copies of one key (more exactly: of one fingerprint in one bucket pair of
// the newest table) the filter holds; the next Insert of that key returns
// kTooManyCopies.
constexpr unsigned kDynamicCuckooMaxCopies = 4;

}  // namespace sstfilter
