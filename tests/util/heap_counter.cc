#include "util/heap_counter.h"

#include <malloc.h>

#include <atomic>
#include <cerrno>
#include <cstddef>

namespace {

std::atomic<size_t> g_live{0};
std::atomic<size_t> g_peak{0};

}  // namespace

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define SSTFILTER_HEAP_COUNTED 1

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t n, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t align, size_t size);
void __libc_free(void* p);
}

namespace {

void* Counted(void* p) {
  if (p == nullptr) return p;
  const size_t live = g_live += malloc_usable_size(p);
  size_t peak = g_peak.load(std::memory_order_relaxed);
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
  return p;
}

void Uncount(void* p) {
  if (p != nullptr) g_live -= malloc_usable_size(p);
}

}  // namespace

extern "C" {
void* malloc(size_t size) { return Counted(__libc_malloc(size)); }
void* calloc(size_t n, size_t size) { return Counted(__libc_calloc(n, size)); }
void* realloc(void* p, size_t size) {
  Uncount(p);
  void* q = __libc_realloc(p, size);
  if (q == nullptr && size != 0) {
    Counted(p);  // the old block is still there
    return nullptr;
  }
  return Counted(q);
}
void free(void* p) {
  Uncount(p);
  __libc_free(p);
}
void* memalign(size_t align, size_t size) { return Counted(__libc_memalign(align, size)); }
void* aligned_alloc(size_t align, size_t size) { return memalign(align, size); }
int posix_memalign(void** out, size_t align, size_t size) {
  void* p = memalign(align, size);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
void* valloc(size_t size) { return memalign(4096, size); }
void* pvalloc(size_t size) { return memalign(4096, (size + 4095) / 4096 * 4096); }
}
#endif

namespace sstfilter {
namespace test {

bool HeapCounted() {
#if SSTFILTER_HEAP_COUNTED
  return true;
#else
  return false;
#endif
}
size_t HeapLive() { return g_live.load(); }
size_t HeapPeak() { return g_peak.load(); }
void ResetHeapPeak() { g_peak = g_live.load(); }

}  // namespace test
}  // namespace sstfilter
