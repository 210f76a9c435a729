// The first bytes of every saved dynamic cuckoo filter (docs/format.md):
// the magic, then at offset 4 the format version, which Load dispatches on.

#pragma once

#include <cstdint>

namespace sstfilter {
namespace dynamic_cuckoo {

constexpr char kFileMagic[4] = {'S', 'F', 'D', 'C'};
// Versions 1 to 3: the doubling tables, read only (legacy_reader.h).
constexpr uint8_t kLastLegacyVersion = 3;
// Version 5: the growing table (growing_filter.h), the one Save writes.
constexpr uint8_t kGrowingVersion = 5;

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
