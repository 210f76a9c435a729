// optimize_filters_for_memory (BlockBasedTableOptions): filter sizes that
// fill the allocator's blocks.
//
// A filter block is held in one allocation of its size, and allocators
// round a request up to a size class, so the bytes between the filter's
// end and its class's are paid for and unused. With the option on, each
// filter is resized, by re-planning its kind at a byte budget
// (PlanInBytes), to one of the two class sizes around its planned size:
// up, the slack becoming filter bits (lower FPR), or down, to the class
// below (less memory, higher FPR). A balance shared by all of a policy's
// filters keeps the expected false positives summed over filters at most
// what the planned sizes give: a filter is rounded down only when earlier
// filters rounded up have paid for it. This is the built-in filters'
// aim, reached our own way.
//
// Only where the allocator says its class sizes (malloc_usable_size, as
// with glibc and jemalloc); elsewhere, and where a kind cannot take the
// other size (its granularity is coarser, as a cache-local Bloom filter's
// 64-byte lines, or the re-plan would change its kind), the planned size
// is kept. With glibc, classes are 16 bytes apart up to its mmap threshold
// (128 KiB at first): filters move by a few bytes. jemalloc's classes are
// four per doubling, where the option saves the most.

#pragma once

#include <atomic>
#include <cstddef>

#include "filters/filter_plan.h"
#include "filters/filter_spec.h"

namespace sstfilter {

// The balance of one policy's filters: expected false positives, each
// filter's FPR weighted by its key count, saved by filters rounded up and
// not yet spent by filters rounded down (an integer, so it updates
// atomically).
class MemoryRounding {
 public:
  // Whether this platform says its allocators' class sizes.
  static bool Supported();

  // The plan to write instead of `planned` (a plan of `spec` for num_keys
  // keys) so that the filter plus `extra_bytes` (the built-in family's
  // guard) fills its allocation; `planned` itself if no class size
  // suits. Thread-safe: builders of one policy share it.
  FilterPlan Round(const FilterPlan& planned, const FilterSpec& spec, size_t num_keys,
                   size_t extra_bytes);

 private:
  std::atomic<int64_t> balance_{0};
};

}  // namespace sstfilter
