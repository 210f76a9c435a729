#include "dynamic/table_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <new>

namespace sstfilter {
namespace dynamic_cuckoo {

// Anonymous zero pages. From 2 MiB on, the mapping starts on a 2 MiB
// boundary and asks for huge pages (a hint, ignored where unavailable), so
// the kernel backs every whole 2 MiB stretch with one: fewer page faults
// when a member or doubling is created, fewer TLB misses for probes. The
// size is not rounded up, so the memory stays the table's own; the tail
// keeps small pages.
void* MapZeroed(size_t bytes) {
  constexpr int kProt = PROT_READ | PROT_WRITE;
  constexpr int kFlags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MADV_HUGEPAGE
  constexpr size_t kHugePage = size_t{2} << 20;
  if (bytes >= kHugePage) {
    const size_t span = bytes + kHugePage;
    void* raw = mmap(nullptr, span, kProt, kFlags, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (start + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1);
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const uintptr_t end = (aligned + bytes + page - 1) & ~(page - 1);
    if (aligned > start) munmap(raw, aligned - start);
    if (start + span > end) munmap(reinterpret_cast<void*>(end), start + span - end);
    void* map = reinterpret_cast<void*>(aligned);
    madvise(map, bytes, MADV_HUGEPAGE);
    return map;
  }
#endif
  void* map = mmap(nullptr, bytes, kProt, kFlags, -1, 0);
  if (map == MAP_FAILED) throw std::bad_alloc();
  return map;
}

void ReleasePages(void* map, size_t bytes) { madvise(map, bytes, MADV_DONTNEED); }

void Unmap(void* map, size_t bytes) { munmap(map, bytes); }

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
