// optimize_filters_for_memory (BlockBasedTableOptions): filter sizes that
// fill the allocator's blocks.
//
// A filter block is held in one allocation of its size, and allocators
// round a request up to a size class, so the bytes between the filter's
// end and its class's end are paid for and unused. With the option on,
// each filter is re-planned at a byte budget of its whole class (its kind
// kept), so those bytes become filter bits: the same memory, a lower FPR.
//
// Rounding up only, where RocksDB's built-ins also round some filters
// down to the class below (saving memory on allocators with coarse
// classes) and keep the aggregate FPR with a running balance: that makes
// a filter's bytes depend on the filters built before it, and ours stay a
// function of their keys.
//
// Only where the allocator tells its class sizes (malloc_usable_size:
// glibc, jemalloc); elsewhere, and where a kind's size steps are coarser
// than the slack (a cache-local Bloom filter's 64-byte lines, a fuse
// filter's segments under glibc's 16-byte classes), the planned size is
// kept.

#pragma once

#include <cstddef>

#include "filters/filter_plan.h"
#include "filters/filter_spec.h"

namespace sstfilter {

// Whether this platform tells its allocators' class sizes.
bool AllocationClassesKnown();

// The largest plan of spec's kind (planned's) such that it plus
// `extra_bytes` (the built-in family's guard) fits the allocation that
// planned.bytes + extra_bytes gets; `planned` itself if none is larger.
// `planned` is spec's plan for num_keys keys.
FilterPlan FillAllocation(const FilterPlan& planned, const FilterSpec& spec, size_t num_keys,
                          size_t extra_bytes);

}  // namespace sstfilter
