// Internal state of DynamicCuckooFilter (sstfilter/dynamic_cuckoo.h),
// shared by its operations (dynamic_cuckoo.cc) and its encoding
// (dynamic_cuckoo_format.cc): the growing table of format version 5, or a
// read-only reader of a file of versions 1 to 3.

#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "dynamic/growing_filter.h"
#include "dynamic/legacy_reader.h"
#include "sstfilter/dynamic_cuckoo.h"

namespace sstfilter {

struct DynamicCuckooFilter::Rep {
  DynamicCuckooOptions options;
  // Exactly one of the two is set. `growing`: every filter Create makes or
  // Load reads from version 5.
  std::unique_ptr<dynamic_cuckoo::GrowingFilter> growing;
  // A file of versions 1 to 3: lookups only.
  std::unique_ptr<dynamic_cuckoo::LegacyReader> legacy;
  // checked mode: exact multiset of inserted hashes (writer only).
  std::unordered_map<uint64_t, uint32_t> exact;
};

}  // namespace sstfilter
