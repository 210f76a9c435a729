// large_filter: builds one filter over tens of millions of keys and reports
// build time, filter size and the peak memory the build took, per key.
// Exits non-zero on any false negative among the keys checked.
//
//   large_filter --num_keys=50000000 --filters=bloom,cuckoo,fuse --bits_per_key=10
//
// Peak memory is the process's resident high-water mark (VmHWM), reset just
// before the build through /proc/self/clear_refs, minus the resident size
// at that moment: what building costs on top of the caller's own data.

#include <gflags/gflags.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "filters/filter_spec.h"
#include "format/hash.h"

DEFINE_uint64(num_keys, 50000000, "keys in the filter");
DEFINE_string(filters, "bloom,cuckoo,fuse", "comma list of sstfilter filter types");
DEFINE_double(bits_per_key, 10, "bits/key budget");
DEFINE_uint64(check_every, 1, "check every Nth key for a false negative");

namespace {

// A /proc/self/status field in kB, or -1.
long StatusKb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::string(field).size()));
  }
  return -1;
}

void ResetPeak() { std::ofstream("/proc/self/clear_refs") << "5"; }

// 20-byte keys, distinct for distinct i.
uint64_t HashOfKey(uint64_t i) {
  char key[24];
  snprintf(key, sizeof(key), "k%018llu", static_cast<unsigned long long>(i));
  return sstfilter::KeyHash(key, 19);
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage("one very large filter: build time, size and peak memory per key");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  std::printf("| filter | keys | bits/key | build s | filter bits/key | peak build bytes/key | false negatives |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  std::stringstream list(FLAGS_filters);
  std::string name;
  int failures = 0;
  while (std::getline(list, name, ',')) {
    sstfilter::FilterSpec spec;
    if (!sstfilter::FilterTypeFromName(name, &spec.type)) {
      std::fprintf(stderr, "unknown filter '%s'\n", name.c_str());
      return 2;
    }
    spec.bits_per_key = FLAGS_bits_per_key;
    const std::string error = sstfilter::ValidateFilterSpec(spec);
    if (!error.empty()) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 2;
    }
    std::string filter;
    ResetPeak();
    const long base_kb = StatusKb("VmRSS:");
    const auto start = std::chrono::steady_clock::now();
    {
      auto builder = sstfilter::NewFilterBuilder(spec);
      for (uint64_t i = 0; i < FLAGS_num_keys; ++i) builder->AddHash(HashOfKey(i));
      builder->Finish(&filter);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const long peak_kb = StatusKb("VmHWM:");
    std::fprintf(stderr, "%s: built in %.1f s, checking keys...\n", name.c_str(), seconds);
    const auto reader = sstfilter::NewFilterReader(filter.data(), filter.size());
    uint64_t misses = 0;
    for (uint64_t i = 0; i < FLAGS_num_keys; i += FLAGS_check_every) {
      misses += reader->MayMatch(HashOfKey(i)) ? 0 : 1;
    }
    failures += misses != 0;
    std::printf("| %s | %llu | %.1f | %.1f | %.2f | %.1f | %llu |\n", name.c_str(),
                static_cast<unsigned long long>(FLAGS_num_keys), FLAGS_bits_per_key, seconds,
                filter.size() * 8.0 / FLAGS_num_keys,
                (peak_kb - base_kb) * 1024.0 / FLAGS_num_keys,
                static_cast<unsigned long long>(misses));
    std::fflush(stdout);
  }
  return failures == 0 ? 0 : 1;
}
