// Peak heap memory of one filter build, per key, for sstfilter's filters
// and RocksDB's built-ins, driven as RocksDB's table builder drives them
// (filter_bench's FilterUnderTest: GetBuilderWithContext, AddKey for every
// key, Finish). Every allocation of the process is counted
// (tests/util/heap_counter.h: malloc, calloc and operator new alike), so
// the figure is the high-water mark of the bytes
// the builder held at once (its hashes, working arrays and the finished
// filter), above what was allocated before it started; the keys
// themselves are made beforehand and not counted.
//
// Usage: build_memory [num_keys...]  (default 100000 1000000)

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../filter_bench/filter_under_test.h"
#include "../filter_bench/key_gen.h"
#include "charge_probe.h"
#include "util/heap_counter.h"

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
  std::printf(
      "| filter | bpk | keys | filter B/key | peak build B/key | charged B/key |\n"
      "|---|---:|---:|---:|---:|---:|\n");
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
      const size_t before = sstfilter::test::HeapLive();
      sstfilter::test::ResetHeapPeak();
      filter_bench::BuiltFilter built = filter->Build(keys, &seconds);
      const double peak = static_cast<double>(sstfilter::test::HeapPeak() - before) / static_cast<double>(n);
      // To a tenth of a byte per key, up to 64 bytes per key.
      const size_t charged = build_memory::SmallestStrictCache(filter->policy(), keys, n / 10, 64 * n);
      std::printf("| %s | %g | %zu | %.2f | %.1f | %s |\n", f.first.c_str(), f.second, n,
                  static_cast<double>(built.size()) / static_cast<double>(n), peak,
                  charged == 0 ? "none" : std::to_string(charged / static_cast<double>(n)).substr(0, 4).c_str());
    }
  }
  std::printf("\nPeak: the most heap bytes held at once from asking for a builder to Finish "
              "returning, the finished filter included, per key; measured by counting every "
              "allocation and release of the process.\n"
              "Charged: with the table options charging kFilterConstruction, the smallest "
              "block cache with strict_capacity_limit in which the build still writes the "
              "filter it writes with no cache (below it the charge is refused and the build "
              "falls back to a Bloom filter), per key, to a tenth of a byte; \"none\" if "
              "no cache changes the bytes.\n");
  return 0;
}
