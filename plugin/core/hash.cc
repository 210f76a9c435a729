#include "hash.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace sstfilter {
namespace {
// Arbitrary constants, fixed by format version 1.
constexpr uint64_t kKeySeed = 0x73737466696c7431ULL;       // "sstfilt1"
constexpr uint64_t kChecksumSeed = 0x737374636865636bULL;  // "sstcheck"
}  // namespace

uint64_t KeyHash(const char* data, size_t size) {
  return XXH3_64bits_withSeed(data, size, kKeySeed);
}

uint32_t ContentChecksum(const char* data, size_t size) {
  return static_cast<uint32_t>(XXH3_64bits_withSeed(data, size, kChecksumSeed));
}

}  // namespace sstfilter
