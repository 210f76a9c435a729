// Every heap byte of the process, counted: linking heap_counter.cc into a
// program replaces malloc, calloc, realloc, the aligned allocators and
// free with glibc's own behind a count of the bytes live (each block's
// malloc_usable_size) and their high-water mark. operator new and any
// library's allocations go through them, so a build's peak includes what
// it asks of calloc as much as of new.
//
// Not under AddressSanitizer or ThreadSanitizer, which replace the
// allocator themselves: there HeapCounted() is false and nothing counts.

#pragma once

#include <cstddef>

namespace sstfilter {
namespace test {

bool HeapCounted();
size_t HeapLive();
// The high-water mark since the last ResetHeapPeak (which sets it to the
// bytes live now).
size_t HeapPeak();
void ResetHeapPeak();

}  // namespace test
}  // namespace sstfilter
