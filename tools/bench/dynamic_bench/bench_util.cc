// dynamic_bench's shared pieces: see bench_util.h.

#include "bench_util.h"

#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>

#include "filters/cuckoo_filter.h"

namespace dynamic_bench {

using sstfilter::DynamicCuckooFilter;
using sstfilter::DynamicCuckooOptions;
using sstfilter::DynamicStatus;

Summary g_summary;

void Fail(const std::string& what) {
  std::fprintf(stderr, "dynamic_bench: FAILED: %s\n", what.c_str());
  std::exit(1);
}

void Say(const std::string& s) { std::fprintf(stderr, "%s\n", s.c_str()); }

std::unique_ptr<DynamicCuckooFilter> NewDynamic(uint64_t initial) {
  DynamicCuckooOptions o;
  o.target_fpr = FLAGS_fpr;
  o.initial_capacity = initial;
  std::unique_ptr<DynamicCuckooFilter> f;
  if (DynamicCuckooFilter::Create(o, &f) != DynamicStatus::kOk) Fail("bad --fpr or --initial");
  return f;
}

double StaticBitsPerKeySetting(uint64_t n) {
  for (double bpk = 4.0; bpk < 40.0; bpk += 0.05) {
    sstfilter::CuckooBuilder b(bpk, sstfilter::CuckooVariant::kAuto);
    if (b.ExpectedFpr(n) <= FLAGS_fpr) return bpk;
  }
  return 40.0;
}

double StaticBitsPerKey(uint64_t n, double setting) {
  sstfilter::CuckooBuilder b(setting, sstfilter::CuckooVariant::kAuto);
  return 8.0 * static_cast<double>(b.FilterSize(n)) / static_cast<double>(n);
}

double DependentLoadNs(size_t bytes) {
  // A random cycle through the buffer's cache lines, in memory mapped as
  // the dynamic filter's tables are (huge pages asked for), so that the
  // TLB costs the same.
  const size_t lines = std::max<size_t>(2, bytes / 64);
  void* map = mmap(nullptr, lines * 64, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) Fail("mmap");
#ifdef MADV_HUGEPAGE
  madvise(map, lines * 64, MADV_HUGEPAGE);
#endif
  auto* next = static_cast<uint64_t*>(map);
  std::vector<uint64_t> order(lines);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin() + 1, order.end(), std::mt19937_64(42));
  for (size_t i = 0; i < lines; ++i) next[order[i] * 8] = order[(i + 1) % lines] * 8;
  const uint64_t steps = 4000000;
  uint64_t at = 0;
  const double ns = Median([&] {
    return NsPerOp(steps, [&] {
      for (uint64_t i = 0; i < steps; ++i) at = next[at];
    });
  });
  if (at >= lines * 8) Fail("pointer chase");
  munmap(map, lines * 64);
  return ns;
}

}  // namespace dynamic_bench
