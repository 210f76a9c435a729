// Shared by the dynamic filter's tables' eviction searches (a breadth-first
// tree of nodes, each a bucket and its parent's index, -1 at a root).

#pragma once

#include <cstddef>
#include <cstdint>

namespace sstfilter {
namespace dynamic_cuckoo {

// Whether the path from nodes[node] up to its root passes each bucket once,
// so that moving entries along it never overwrites a slot another move
// still reads. kMaxBuckets bounds the path's length (the search's depth
// plus its root); at that size a quadratic scan is cheaper than a set.
template <size_t kMaxBuckets, typename Nodes>
bool PathIsSimple(const Nodes& nodes, int32_t node) {
  uint64_t path[kMaxBuckets];
  size_t n = 0;
  for (int32_t i = node; i >= 0; i = nodes[i].parent) {
    const uint64_t b = nodes[i].bucket;
    for (size_t j = 0; j < n; ++j) {
      if (path[j] == b) return false;
    }
    path[n++] = b;
  }
  return true;
}

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
