// Which layout of RocksDB's internal filter classes the version being
// built against has (filter_bits_decl.h lists them, docs/rocksdb_versions.md
// says how they were read).

#pragma once

#include <rocksdb/version.h>

// 9.6 put AddKeyAndAlt after AddKey (9.0-9.5 have the 7.x layout).
#define SSTFILTER_HAS_ADD_KEY_AND_ALT \
  (ROCKSDB_MAJOR > 9 || (ROCKSDB_MAJOR == 9 && ROCKSDB_MINOR >= 6))
// 10.9 made CalculateSpace and EstimatedFpRate pure virtuals of
// FilterBitsBuilder, after ApproximateNumEntries.
#define SSTFILTER_HAS_CALCULATE_SPACE \
  (ROCKSDB_MAJOR > 10 || (ROCKSDB_MAJOR == 10 && ROCKSDB_MINOR >= 9))
// The newest release whose header has been read (filter_bits_decl.h); a
// later one is refused out of tree until it has been.
#define SSTFILTER_NEWEST_CHECKED_MAJOR 11
#define SSTFILTER_NEWEST_CHECKED_MINOR 8
