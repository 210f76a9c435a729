// Shared pieces of the fuse filter's tests (fuse_test, fuse_reader_test):
// building a filter from hashes, and the kind it wrote.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "filters/fuse_filter.h"
#include "format/trailer.h"
#include "test_util.h"

namespace sstfilter {
namespace test {

inline std::string Build(FilterBuilder* builder, const std::vector<uint64_t>& hashes) {
  for (uint64_t h : hashes) builder->AddHash(h);
  std::string filter;
  builder->Finish(&filter);
  return filter;
}

inline FilterKind KindOf(const std::string& filter) {
  return static_cast<FilterKind>(filter[filter.size() - kTrailerSize]);
}

}  // namespace test
}  // namespace sstfilter
