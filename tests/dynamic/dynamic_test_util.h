// Shared pieces of the dynamic cuckoo filter's tests.

#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "format/hash.h"
#include "sstfilter/dynamic_cuckoo.h"

namespace sstfilter {
namespace test {

// F::Create(o, &f), expected to succeed. F is DynamicCuckooFilter or the
// growing engine under it (dynamic_cuckoo::GrowingFilter).
template <typename F>
std::unique_ptr<F> CreateOrFail(const DynamicCuckooOptions& o) {
  std::unique_ptr<F> f;
  EXPECT_EQ(F::Create(o, &f), DynamicStatus::kOk);
  return f;
}

// A filter with the default target FPR, these sizes, and no checked mode.
inline std::unique_ptr<DynamicCuckooFilter> NewDynamic(uint64_t initial_capacity = 1024,
                                                       uint64_t expected_max_keys = 0,
                                                       uint32_t format_version = 0) {
  DynamicCuckooOptions o;
  o.initial_capacity = initial_capacity;
  o.expected_max_keys = expected_max_keys;
  o.format_version = format_version;
  return CreateOrFail<DynamicCuckooFilter>(o);
}

// A filter with these options, the rest default.
inline std::unique_ptr<DynamicCuckooFilter> Make(double fpr = 0.001, uint64_t cap = 1024,
                                                 bool checked = false,
                                                 uint32_t format_version = 0) {
  DynamicCuckooOptions o;
  o.target_fpr = fpr;
  o.initial_capacity = cap;
  o.checked = checked;
  o.format_version = format_version;
  return CreateOrFail<DynamicCuckooFilter>(o);
}

inline std::string Key(uint64_t i) { return "key" + std::to_string(i); }

// A saved filter rewritten in place, its checksum (the last 4 bytes)
// recomputed: for Load's checks behind the checksum.
inline std::string Resealed(std::string bytes) {
  const uint32_t sum = ContentChecksum(bytes.data(), bytes.size() - 4);
  for (int i = 0; i < 4; ++i) bytes[bytes.size() - 4 + i] = static_cast<char>(sum >> (8 * i));
  return bytes;
}

}  // namespace test
}  // namespace sstfilter
