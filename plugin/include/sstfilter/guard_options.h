// GuardedDB's options and statistics (guarded_db.h, which includes this):
// plain values, apart from the class so that the guard's state can name
// them without naming the class it serves.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sstfilter {

struct GuardOptions {
  // The guard's false-positive rate, kept at every size (0 < fpr < 0.5).
  double target_fpr = 0.001;
  // Column families to guard, by name; empty guards every family,
  // including those created later.
  std::vector<std::string> column_families;
  // Where the guard is saved; empty: "<db path>/SSTFILTER-GUARD".
  std::string guard_file;
  // Rebuild progress on stderr.
  bool report_progress = true;
  // A family's filter is planned for at least this many keys: a smaller
  // family's fingerprints are sized for growth up to here, so that it grows
  // without losing FPR or rebuilding. At most 2^40.
  uint64_t min_planned_keys = uint64_t{1} << 20;
  // Each time a family's entries, plus the deletes since its filter was
  // built (at open, or by the last re-presize), reach twice the keys it was
  // built for, and at least min_planned_keys, rebuild the filter for the
  // keys the DB holds then, from a snapshot scan on a background thread,
  // and swap it in: a grown filter spends more bits per key than one sized
  // for its keys, and the rebuild drops deleted keys' stale entries
  // (docs/design/key_guard_lifecycle.md). Reads never block; writes of new keys wait
  // only while its last few thousand are replayed. It costs a scan of the
  // family and, while it runs, a second filter. RepresizeGuard runs one on
  // demand.
  bool background_represize = true;
  // A single-key Get probes the guard only while probing pays: while fewer
  // than 1 in 16 of a reading thread's probed Gets are ruled out, it probes
  // 1 Get in 8 (at a pseudo-random place in each 8) and sends the others to
  // the DB unprobed, and it probes every Get again once 1 in 16 of those
  // probes, or 16 in a row, are ruled out (a flood of absent keys, within
  // 135 Gets, barring the guard's false positives among them). A present
  // key's probe is a memory access, out of cache behind the DB's own reads
  // (docs/results/guard.md measures it); an unprobed Get is answered by the
  // DB, so it is never wrong, only unguarded. Each thread decides for the
  // GuardedDB it read last (one that alternates between two probes every
  // Get). MultiGet and KeyMayExist always probe. false: every Get probes.
  bool adaptive_probes = true;
};

struct GuardStats {
  uint64_t ruled_out = 0;       // reads answered NotFound/false by the guard
  uint64_t unprobed_gets = 0;   // Gets sent to the DB unprobed (adaptive_probes),
                                // counted at the thread's next probe of this DB
                                // (a thread that moves to another DB or exits
                                // leaves up to 7 uncounted)
  uint64_t keys = 0;            // entries in the guards (stale ones included)
  uint64_t memory_bytes = 0;    // filter bytes over every guarded family, and
                                // what a running re-presize holds (below)
  uint64_t guard_errors = 0;    // guards switched off: a key refused (full),
                                // or an entry the hook could not read
  uint64_t disabled_families = 0;  // guards switched off until the next Open
  // Open decides per guarded family: loaded from the saved guard, or rebuilt
  // from a scan of that family. Both are true when the saved file was usable
  // but held no valid filter for some family (created since, say): those
  // families were rebuilt, the others loaded. A rebuild of the whole DB
  // (the file missing or not matching) rebuilds every guarded family.
  bool loaded = false;
  bool rebuilt = false;
  uint64_t rebuilt_keys = 0;    // keys scanned, over the rebuilt families
  double rebuild_seconds = 0;
  std::string rebuild_reason;   // why the saved guard was not used (the last
                                // rebuilt family's reason)
  uint64_t represizes = 0;      // filters rebuilt and swapped in since Open
  double represize_seconds = 0;
  // The most a re-presize since Open held at once beyond the guards'
  // filters: the filter it built.
  uint64_t represize_peak_bytes = 0;
};

}  // namespace sstfilter
