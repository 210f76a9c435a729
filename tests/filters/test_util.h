// Deterministic key sets for tests: no std::random_device, no rand().

#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sstfilter {
namespace test {

inline uint64_t SplitMix(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// `n` random 64-bit hashes from `seed` (what a filter's core is given).
inline std::vector<uint64_t> RandomHashes(size_t n, uint64_t seed) {
  std::vector<uint64_t> hashes(n);
  for (uint64_t& h : hashes) h = SplitMix(&seed);
  return hashes;
}

// `n` distinct keys "<tag>:<16 hex digits>" from `seed`; keys of different
// tags never collide, so tag 'n' keys serve as known negatives.
inline std::vector<std::string> MakeKeys(size_t n, uint64_t seed, char tag = 'p') {
  std::vector<std::string> keys;
  keys.reserve(n);
  uint64_t state = seed;
  char buf[32];
  for (size_t i = 0; i < n; ++i) {
    snprintf(buf, sizeof(buf), "%c:%016llx", tag,
             static_cast<unsigned long long>(SplitMix(&state) ^ i));
    keys.emplace_back(buf);
  }
  return keys;
}

}  // namespace test
}  // namespace sstfilter
