// fuse_sizing: how often a binary fuse filter's first peeling succeeds,
// against the slots per key, at the key counts of SST filters. The
// evidence behind the builder's 4-wise sizing (fuse_builder.cc,
// SlotsPerKey) and behind docs/design/fuse.md's statement of what 10k-30k keys
// cannot reach.
//
// For each key count n it takes the builder's own 4-wise segment length
// (FuseLayoutFor) and arrays of ceil(c * n / 2^segment_log) segments for
// a grid of c, builds `--trials` random key sets, addresses them with
// FuseHashing (the builder's and reader's addressing, seed 0: the first
// attempt), and peels each hypergraph with a plain stack peeler of its
// own. Whether a hypergraph peels does not depend on the order, so this
// is the builder's first-attempt outcome. The last column of each size is
// the builder's chosen shape.
//
// A second table gives, for the two whole-segment arrays nearest 1.15
// slots/key, how many keys the failed peelings leave in the core:
// what an elimination solver (as Ribbon's) would have to take on.
//
// A third table gives the shapes ChooseFuseShape picks at 10, 12 and 16
// bits/key (arity, whole fingerprint bits, wide segments): their bits/key
// over log2(1/expected FPR) per size, and means over 10k-100k keys.
//
//   build/tools/fuse_sizing [--trials=200]

#include <gflags/gflags.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <set>
#include <vector>

#include "filters/fuse_filter.h"
#include "filters/fuse_hashing.h"

DEFINE_int32(trials, 200, "Random key sets per cell (halved above 50k keys, quartered above 100k).");

namespace sstfilter {
namespace {

uint64_t SplitMix(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// How many keys of the 4-wise hypergraph of `keys` peel: all of them if
// its 2-core is empty, and the keys left are the core.
size_t Peeled(const std::vector<uint64_t>& keys, const FuseHashing& hashing, uint64_t num_slots) {
  std::vector<uint32_t> count(num_slots, 0), xor_index(num_slots, 0), stack;
  uint64_t s[4];
  for (size_t i = 0; i < keys.size(); ++i) {
    hashing.Slots<4>(keys[i], s);
    for (uint64_t t : s) {
      ++count[t];
      xor_index[t] ^= static_cast<uint32_t>(i);
    }
  }
  for (uint64_t t = 0; t < num_slots; ++t) {
    if (count[t] == 1) stack.push_back(static_cast<uint32_t>(t));
  }
  size_t peeled = 0;
  while (!stack.empty()) {
    const uint32_t t = stack.back();
    stack.pop_back();
    if (count[t] != 1) continue;
    const uint32_t k = xor_index[t];
    ++peeled;
    hashing.Slots<4>(keys[k], s);
    for (uint64_t u : s) {
      xor_index[u] ^= k;
      if (--count[u] == 1) stack.push_back(static_cast<uint32_t>(u));
    }
  }
  return peeled;
}

// First peelings of `trials` random key sets on an array of
// `total_segments` segments: the size of the core each failed one left
// (so the successes are trials minus its size). The key sets depend on n,
// the array and the trial count only, so both tables see the same ones
// for one array (the first table halves its trials above 50k keys; the
// core table stays at 30k and below).
std::vector<size_t> FailedCores(size_t n, int segment_log, uint64_t total_segments, int trials) {
  const FuseHashing hashing(0, total_segments - 3, segment_log, 4);
  uint64_t seed = 1000003 * n + total_segments;
  std::vector<uint64_t> keys(n);
  std::vector<size_t> cores;
  for (int t = 0; t < trials; ++t) {
    for (auto& k : keys) k = SplitMix(&seed);
    const size_t peeled = Peeled(keys, hashing, total_segments << segment_log);
    if (peeled < n) cores.push_back(n - peeled);
  }
  return cores;
}

double SuccessRate(size_t n, int segment_log, uint64_t total_segments, int trials) {
  const size_t failed = FailedCores(n, segment_log, total_segments, trials).size();
  return static_cast<double>(trials - static_cast<int>(failed)) / trials;
}

double OverTheBound(const FuseShape& shape, size_t n) {
  const double bits = static_cast<double>(shape.payload_size() + 8) * 8 / static_cast<double>(n);
  return bits / -std::log2(shape.expected_fpr()) - 1;
}

// One row of the core table: `total` segments of 2^segment_log slots.
void CoreRow(size_t n, int segment_log, uint64_t total, int trials) {
  std::vector<size_t> cores = FailedCores(n, segment_log, total, trials);
  std::sort(cores.begin(), cores.end());
  std::printf("| %zu | %.3f | %.0f%% | %zu |", n,
              std::ldexp(static_cast<double>(total), segment_log) / static_cast<double>(n),
              100.0 * static_cast<double>(trials - static_cast<int>(cores.size())) / trials,
              cores.size());
  if (cores.empty()) {
    std::printf(" | | |\n");
    return;
  }
  const size_t m = cores.size();
  const double median = (m % 2 == 1) ? static_cast<double>(cores[m / 2])
                                     : (static_cast<double>(cores[m / 2 - 1]) + cores[m / 2]) / 2;
  std::printf(" %zu | %.0f | %zu |\n", cores.front(), median, cores.back());
}

void CoreTable(int trials) {
  std::printf("\n## What a failed peeling leaves at about 1.15 slots/key\n\n");
  std::printf("Per size: the two arrays of whole segments (the builder's length) nearest "
              "1.15 slots/key, and over %d random key sets the share whose first "
              "peeling succeeded, how many failed, then, over those, the keys left unpeeled "
              "(the hypergraph's 2-core): smallest, median and largest.\n\n", trials);
  std::printf("| keys | slots/key | success | failed | core: min | median | max |\n"
              "|---:|---:|---:|---:|---:|---:|---:|\n");
  for (size_t n : {10000, 20000, 30000}) {
    const int log = FuseLayoutFor(n, 4).segment_log;
    const auto below =
        static_cast<uint64_t>(std::floor(1.15 * static_cast<double>(n) / std::ldexp(1.0, log)));
    CoreRow(n, log, below, trials);
    CoreRow(n, log, below + 1, trials);
  }
}

void ShapeTable() {
  std::printf("\n## Binary fuse shapes chosen (ChooseFuseShape)\n\n");
  std::printf("Per size: arity, fingerprint bits f, share of keys checked on f+1 bits "
              "(wide segments), and bits/key (filter bytes with the 8-byte trailer) over "
              "log2(1/expected FPR). Means over every n from 10,000 to 100,000 in steps of "
              "100 (uniform in n), and the largest of those n over 15%%.\n\n");
  std::printf("| bpk | 10k | 30k | 100k | 1M | mean bits/key | mean FPR %% | over, mean | "
              "over 15%% up to |\n|---:|---|---|---|---|---:|---:|---:|---:|\n");
  for (double bpk : {10.0, 12.0, 16.0}) {
    std::printf("| %g |", bpk);
    for (size_t n : {10000, 30000, 100000, 1000000}) {
      const FuseShape s = ChooseFuseShape(n, bpk);
      std::printf(" %d-wise f=%d p=%.2f: %.1f%% |", s.arity, s.fp_bits, s.wide_share(),
                  100 * OverTheBound(s, n));
    }
    double bits = 0, fpr = 0, over = 0;
    size_t count = 0, last_over = 0;
    for (size_t n = 10000; n <= 100000; n += 100, ++count) {
      const FuseShape s = ChooseFuseShape(n, bpk);
      bits += static_cast<double>(s.payload_size() + 8) * 8 / static_cast<double>(n);
      fpr += s.expected_fpr();
      over += OverTheBound(s, n);
      if (OverTheBound(s, n) > 0.15) last_over = n;
    }
    const double c = static_cast<double>(count);
    std::printf(" %.2f | %.4f | %.1f%% | %zu |\n", bits / c, 100 * fpr / c, 100 * over / c,
                last_over);
  }
}

}  // namespace
}  // namespace sstfilter

int main(int argc, char** argv) {
  gflags::SetUsageMessage("First-peeling success of 4-wise binary fuse filters against slots per key.");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  using namespace sstfilter;
  std::printf("## Binary fuse sizing: first-peeling success, 4-wise\n\n");
  std::printf("Each cell: slots/key of the array (whole segments of the builder's length "
              "for n), then the share of %d random key sets (fewer above 50k keys: "
              "trials/2, above 100k: trials/4) whose first peeling succeeded. "
              "**Bold**: the size the builder chooses.\n\n", FLAGS_trials);
  std::printf("| keys | segment | slots/key: success |\n|---:|---:|---|\n");
  for (size_t n : {10000, 15000, 20000, 30000, 50000, 100000, 200000}) {
    const FuseShape chosen = FuseLayoutFor(n, 4);
    const int log = chosen.segment_log;
    const int trials = n > 100000 ? FLAGS_trials / 4 : n > 50000 ? FLAGS_trials / 2 : FLAGS_trials;
    std::set<uint64_t> sizes;
    for (int i = 0; i <= 12; ++i) {
      const double c = 1.09 + 0.01 * i;
      sizes.insert(static_cast<uint64_t>(std::ceil(std::ceil(c * n) / std::ldexp(1.0, log))));
    }
    sizes.insert(chosen.segment_count + 3);
    std::printf("| %zu | %d |", n, 1 << log);
    for (uint64_t total : sizes) {
      const double rate = SuccessRate(n, log, total, trials);
      const double spk = std::ldexp(static_cast<double>(total), log) / static_cast<double>(n);
      const bool is_chosen = total == chosen.segment_count + 3;
      std::printf(" %s%.3f: %.0f%%%s", is_chosen ? "**" : "", spk, 100 * rate, is_chosen ? "**" : "");
      std::fflush(stdout);
    }
    std::printf(" |\n");
  }
  std::printf("\nThe bound's 15%% over log2(1/FPR) needs about 1.15 slots/key (the header adds "
              "0.1-0.2%% at these sizes).\n");
  CoreTable(FLAGS_trials);
  ShapeTable();
  return 0;
}
