// Shared pieces of the dynamic cuckoo filter's tests.

#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "sstfilter/dynamic_cuckoo.h"

namespace sstfilter {
namespace test {

// A filter with the default target FPR, these sizes, and no checked mode.
inline std::unique_ptr<DynamicCuckooFilter> NewDynamic(uint64_t initial_capacity = 1024,
                                                       uint64_t expected_max_keys = 0) {
  DynamicCuckooOptions o;
  o.initial_capacity = initial_capacity;
  o.expected_max_keys = expected_max_keys;
  std::unique_ptr<DynamicCuckooFilter> f;
  EXPECT_EQ(DynamicCuckooFilter::Create(o, &f), DynamicStatus::kOk);
  return f;
}

}  // namespace test
}  // namespace sstfilter
