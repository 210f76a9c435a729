// Peak heap memory of one filter build, per key, for sstfilter's filters
// and RocksDB's built-ins, driven as RocksDB's table builder drives them
// (filter_bench's FilterUnderTest: GetBuilderWithContext, AddKey for every
// key, Finish). Every allocation of the process goes through the counting
// operator new below, so the figure is the high-water mark of the bytes
// the builder held at once (its hashes, working arrays and the finished
// filter), above what was allocated before it started; the keys
// themselves are made beforehand and not counted.
//
// Usage: build_memory [num_keys...]  (default 100000 1000000)

#include <malloc.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "../filter_bench/filter_under_test.h"
#include "../filter_bench/key_gen.h"

namespace {

std::atomic<size_t> g_live{0};
std::atomic<size_t> g_peak{0};

void* Counted(size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  const size_t live = g_live += malloc_usable_size(p);
  size_t peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
  return p;
}

void Uncounted(void* p) {
  if (p == nullptr) return;
  g_live -= malloc_usable_size(p);
  std::free(p);
}

}  // namespace

void* operator new(size_t size) { return Counted(size); }
void* operator new[](size_t size) { return Counted(size); }
void* operator new(size_t size, std::align_val_t align) {
  // Aligned allocations (RocksDB's cache-line aligned arrays) counted alike.
  void* p = std::aligned_alloc(static_cast<size_t>(align),
                               (size + static_cast<size_t>(align) - 1) / static_cast<size_t>(align) *
                                   static_cast<size_t>(align));
  if (p == nullptr) throw std::bad_alloc();
  const size_t live = g_live += malloc_usable_size(p);
  size_t peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
  return p;
}
void* operator new[](size_t size, std::align_val_t align) { return operator new(size, align); }
void operator delete(void* p) noexcept { Uncounted(p); }
void operator delete[](void* p) noexcept { Uncounted(p); }
void operator delete(void* p, size_t) noexcept { Uncounted(p); }
void operator delete[](void* p, size_t) noexcept { Uncounted(p); }
void operator delete(void* p, std::align_val_t) noexcept { Uncounted(p); }
void operator delete[](void* p, std::align_val_t) noexcept { Uncounted(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { Uncounted(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { Uncounted(p); }

int main(int argc, char** argv) {
  std::vector<size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoul(argv[i], nullptr, 10));
  if (sizes.empty()) sizes = {100000, 1000000};
  // Ribbon at its Bloom-equivalent setting that gives it 10 and 16
  // bits/key at a million keys (filter_bench's bits/key column).
  const std::vector<std::pair<std::string, double>> filters = {
      {"bloom", 10},  {"cuckoo", 10}, {"fuse", 10},          {"burr", 10},
      {"rocksdb_bloom", 10},          {"rocksdb_ribbon", 14.5}, {"burr", 16},
      {"fuse", 16},   {"rocksdb_ribbon", 25.7}};
  std::printf("| filter | bpk | keys | filter B/key | peak build B/key |\n|---|---:|---:|---:|---:|\n");
  for (size_t n : sizes) {
    filter_bench::KeyBatch keys;
    keys.Resize(n);
    const filter_bench::KeyMaker maker(42);
    for (size_t i = 0; i < n; ++i) maker.Write(i, keys.mutable_key(i));
    for (const auto& f : filters) {
      std::string error;
      auto filter = filter_bench::FilterUnderTest::Create(f.first, f.second, &error);
      if (!filter) {
        std::fprintf(stderr, "%s: %s\n", f.first.c_str(), error.c_str());
        return 1;
      }
      double seconds = 0;
      const size_t before = g_live.load();
      g_peak = before;
      filter_bench::BuiltFilter built = filter->Build(keys, &seconds);
      const double peak = static_cast<double>(g_peak.load() - before) / static_cast<double>(n);
      std::printf("| %s | %g | %zu | %.2f | %.1f |\n", f.first.c_str(), f.second, n,
                  static_cast<double>(built.size()) / static_cast<double>(n), peak);
    }
  }
  std::printf("\nPeak: the most heap bytes held at once from asking for a builder to Finish "
              "returning, the finished filter included, per key; measured by counting every "
              "operator new and delete of the process.\n");
  return 0;
}
