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
#include "sstfilter/dynamic_options.h"

namespace sstfilter {
namespace dynamic_cuckoo {

// A plain struct the public class points to, not a member type of it, so
// that it needs only the options (dynamic_options.h), not the class.
struct FilterRep {
  DynamicCuckooOptions options;
  // Exactly one of the two is set. `growing`: every filter Create makes or
  // Load reads from version 5.
  std::unique_ptr<GrowingFilter> growing;
  // A file of versions 1 to 3: lookups only.
  std::unique_ptr<LegacyReader> legacy;
  // checked mode: exact multiset of inserted hashes (writer only).
  std::unordered_map<uint64_t, uint32_t> exact;
};

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
