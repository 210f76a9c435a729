// Memory for the dynamic cuckoo filter's tables: anonymous zero pages
// (zero is "empty" in every table), which a replaced table hands back to
// the system while readers that still hold its address read zeros.

#pragma once

#include <cstddef>

namespace sstfilter {
namespace dynamic_cuckoo {

// `bytes` of zeroed memory; throws std::bad_alloc when it cannot be mapped.
// From 2 MiB on, aligned to 2 MiB and marked for huge pages (a hint).
void* MapZeroed(size_t bytes);
// Returns the pages to the system; the range stays mapped and reads zeros.
void ReleasePages(void* map, size_t bytes);
void Unmap(void* map, size_t bytes);

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
