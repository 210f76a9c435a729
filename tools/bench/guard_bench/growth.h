// guard_bench's growth measurement: after the runs, new keys through the
// guard until it holds a multiple of its keys at open, and what its
// bits/key and FPR are then (rows of the guard table).

#pragma once

#include <sstfilter/guarded_db.h>

#include <cstdint>
#include <functional>
#include <string>

namespace guard_bench {

// Puts keys key(first_key), key(first_key + 1), ... with empty values (the
// filter is what grows) through `writes` (over `guard`) in batches of
// 1,000, until the guard holds `growth` times `keys_at_open`, sampling
// bits/key after every batch. Re-presizes run in the background as they
// would for a user; the last figure is taken without waiting for one.
// Then measures the FPR over `fpr_queries` keys key(i) + "z", never
// written, and prints the rows against `bits_at_open` and `target_fpr`.
void ReportGrowth(sstfilter::GuardedDB* guard, rocksdb::DB* writes,
                  const std::function<std::string(uint64_t)>& key, uint64_t first_key,
                  double growth, uint64_t keys_at_open, double bits_at_open,
                  uint64_t fpr_queries, double target_fpr);

}  // namespace guard_bench
