// The adapter's key hash: sstfilter's fixed KeyHash (format/hash.h) over a
// RocksDB Slice, for the filter policies and the key guard alike.

#pragma once

#include <cstdint>

#include <rocksdb/slice.h>

#include "format/hash.h"

namespace sstfilter {

inline uint64_t KeyHash(const rocksdb::Slice& key) { return KeyHash(key.data(), key.size()); }

}  // namespace sstfilter
