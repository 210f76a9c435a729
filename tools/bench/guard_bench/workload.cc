#include "workload.h"

#include <cstdio>

namespace guard_bench {

Rates Measure(const Workload& w, int rounds, uint64_t write_block, rocksdb::DB* unguarded,
              rocksdb::DB* guarded) {
  Rates rates;
  // A write workload changes what it measures: the memtable grows, a
  // flush or compaction starts in the background and takes a core. Run
  // back to back, one side would get the emptier memtable or the
  // compaction (50,000 puts are about 5 s): so its two sides alternate in
  // blocks of `write_block` operations and each side's blocks are timed
  // and summed. Reads leave the DB as it is and run one block per side
  // (interleaving them would also charge the guarded side for the cache
  // the unguarded one just churned).
  const uint64_t block = w.writes && write_block > 0 ? write_block : w.ops;
  for (int r = 0; r < rounds; ++r) {
    double seconds[2] = {0, 0};
    for (uint64_t done = 0, b = 0; done < w.ops; done += block, ++b) {
      const uint64_t count = std::min(block, w.ops - done);
      for (int g = 0; g < 2; ++g) {
        const bool is_guarded = (g + r + b) % 2 == 1;  // alternate which goes first
        const auto start = Clock::now();
        w.run(is_guarded ? guarded : unguarded, is_guarded, count);
        seconds[is_guarded] += Since(start);
      }
    }
    for (int g = 0; g < 2; ++g) rates.rate[g].push_back(w.ops / seconds[g]);
    std::fprintf(stderr, "%s: round %d: unguarded %.0f ops/s, guarded %.0f ops/s\n", w.name, r + 1,
                 rates.rate[0].back(), rates.rate[1].back());
  }
  return rates;
}

void PrintRow(const Workload& w, const Rates& rates) {
  // The ratio is the median of each round's guarded/unguarded pair (run
  // back to back), which cancels most of a shared machine's drift.
  std::vector<double> ratios;
  for (size_t r = 0; r < rates.rate[0].size(); ++r) {
    ratios.push_back(rates.rate[1][r] / rates.rate[0][r]);
  }
  const double ratio = Median(ratios);
  std::string target = "reported";
  if (w.target > 0) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), ">= %.2fx: %s", w.target,
                  ratio >= w.target ? "holds" : "MISSED");
    target = buf;
  }
  if (*w.note) target += std::string(" (") + w.note + ")";
  std::printf("| %s | %.0f | %.0f | %.2fx | %s |\n", w.name, Median(rates.rate[0]),
              Median(rates.rate[1]), ratio, target.c_str());
}

}  // namespace guard_bench
