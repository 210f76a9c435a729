#include "format/hash.h"

namespace sstfilter {
namespace {
// Arbitrary constants, fixed by format version 1.
constexpr uint64_t kChecksumSeed = 0x737374636865636bULL;  // "sstcheck"
}  // namespace

uint32_t ContentChecksum(const char* data, size_t size) {
  return static_cast<uint32_t>(XXH3_64bits_withSeed(data, size, kChecksumSeed));
}

}  // namespace sstfilter
