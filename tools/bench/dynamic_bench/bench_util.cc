// dynamic_bench's shared pieces: see bench_util.h.

#include "bench_util.h"

#include <cstdio>
#include <cstdlib>

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
  o.format_version = FLAGS_format_version;
  std::unique_ptr<DynamicCuckooFilter> f;
  if (DynamicCuckooFilter::Create(o, &f) != DynamicStatus::kOk) Fail("bad --fpr, --initial or --format_version");
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

}  // namespace dynamic_bench
