// optimize_filters_for_memory (BlockBasedTableOptions): filter sizes that
// fill the allocator's blocks.
//
// RocksDB reads a filter block into one allocation of the block and its
// 5-byte block trailer (compression type and checksum), and allocators
// round a request up to a size class, so the bytes between the trailer's
// end and its class's end are paid for and unused. With the option on,
// each filter is re-planned so that filter and trailer fill the whole
// class (its kind kept): those bytes become filter bits, the same memory,
// a lower FPR. RocksDB's built-in filters leave room for the trailer alike.
//
// What a filter's bytes then depend on: its keys, its spec, and the size
// class the allocator gives filter plus trailer when the filter is built
// (malloc_usable_size of a probe). That class is a pure function of the
// size for jemalloc, and for glibc below its mmap threshold (16-byte
// classes). Above the threshold (128 KiB at start; glibc raises it, up to
// 32 MiB, each time the process frees a larger mmapped block) glibc's
// answer depends on the process's history: a page when the probe is
// mmapped, 16 bytes once the threshold has passed that size. Either way
// the filter ends within 15 bytes of the class RocksDB's later load gets.
//
// Rounding up only, where RocksDB's built-ins also round some filters
// down to the class below (saving memory on allocators with coarse
// classes) and keep the aggregate FPR with a running balance: that makes
// a filter's bytes depend on the filters built before it; ours depend on
// nothing but what is said above.
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

// RocksDB's block trailer, loaded into the same allocation as the filter.
constexpr size_t kBlockTrailerBytes = 5;

// Whether this platform tells its allocators' class sizes.
bool AllocationClassesKnown();

// The largest plan of spec's kind (planned's) such that it plus
// `extra_bytes` (the built-in family's guard) plus the block trailer fits
// the allocation that planned.bytes + extra_bytes + kBlockTrailerBytes
// gets; `planned` itself if none is larger.
// `planned` is spec's plan for num_keys keys.
FilterPlan FillAllocation(const FilterPlan& planned, const FilterSpec& spec, size_t num_keys,
                          size_t extra_bytes);

}  // namespace sstfilter
