// Hand-offs through RocksDB, stated for ThreadSanitizer.
//
// RocksDB hands our objects between threads: a policy made by the user's
// thread is used by flush and compaction threads, and a reader made by one
// thread (a flush, a compaction, a table open) is queried by every reading
// thread through the table and block caches. Against an uninstrumented
// librocksdb (Debian's: tools/scripts/test.sh --rocksdb none) TSan cannot see those
// hand-offs and would report each first use as a race with construction.
// (Against RocksDB built with TSan it sees them itself; the statements
// below then only repeat what is true.) We state them at the
// boundary: construction publishes, each use receives. The objects are
// immutable after construction, so this hides nothing of ours.

#pragma once

namespace sstfilter {

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
inline void PublishedBy(const void* object) { __tsan_release(const_cast<void*>(object)); }
inline void ReceivedFrom(const void* object) { __tsan_acquire(const_cast<void*>(object)); }
#else
inline void PublishedBy(const void*) {}
inline void ReceivedFrom(const void*) {}
#endif

}  // namespace sstfilter
