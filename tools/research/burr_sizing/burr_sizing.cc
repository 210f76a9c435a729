// Measures the bumped ribbon filter's space over the bound, FPR and speed
// at a range of key counts and bits/key, for choosing its tuning
// (burr_banding.h). Usage: burr_sizing [bits_per_key...]; prints one row
// per (n, bits/key).

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "filters/burr_banding.h"
#include "filters/burr_filter.h"
#include "filters/burr_reader.h"
#include "format/hash.h"

using namespace sstfilter;

int main(int argc, char** argv) {
  std::vector<double> bits = {10, 16};
  std::vector<size_t> sizes = {10000, 20000, 50000, 100000, 1000000, 2000000};
  BurrTuning tuning;
  if (const char* v = std::getenv("LOAD")) tuning.load = std::atof(v);
  if (const char* v = std::getenv("T1")) tuning.thresholds[1] = std::atoi(v);
  if (const char* v = std::getenv("T2")) tuning.thresholds[2] = std::atoi(v);
  if (const char* v = std::getenv("SIZES")) {
    sizes.clear();
    for (const char* p = v; *p;) {
      char* end;
      sizes.push_back(std::strtoul(p, &end, 10));
      p = *end ? end + 1 : end;
    }
  }
  if (argc > 1) {
    bits.clear();
    for (int i = 1; i < argc; ++i) bits.push_back(std::atof(argv[i]));
  }
  const size_t queries = std::getenv("QUERIES") ? std::atol(std::getenv("QUERIES")) : 2000000;
  std::printf("%9s %6s %8s %10s %10s %8s %6s %6s %8s %8s %8s %6s %8s\n", "keys", "bits", "bits/key", "fpr",
              "bound", "over%", "layers", "cols", "piv/slot", "build_ns", "neg_ns", "wide%", "wide%");
  std::mt19937_64 rng(42);
  for (double b : bits) {
    for (size_t n : sizes) {
      std::vector<uint64_t> keys(n);
      for (auto& k : keys) k = rng();
      std::vector<uint64_t> copy = keys;
      const size_t total = static_cast<size_t>(std::floor(n * b / 8));
      std::string f;
      BurrBuildStats st;
      auto t0 = std::chrono::steady_clock::now();
      if (ChooseBurrShape(n, b).payload_bytes != total - kTrailerSize) std::printf("plan differs\n");
      if (!AppendBurrFilter(total - kTrailerSize, &copy, tuning, &f, &st)) {
        std::printf("%9zu build failed\n", n);
        continue;
      }
      auto t1 = std::chrono::steady_clock::now();
      Trailer tr;
      tr.kind = kBurrKind;
      tr.param_a = static_cast<uint8_t>(f[f.size() - 7]);
      BurrLayout layout;
      if (!ParseBurrLayout(tr, f.data(), f.size() - kTrailerSize, &layout)) {
        std::printf("parse failed\n");
        return 1;
      }
      BurrReader reader(layout);
      const double model = BurrLayoutFpr(layout);
      for (uint64_t k : keys) {
        if (!reader.MayMatch(k)) {
          std::printf("FALSE NEGATIVE\n");
          return 1;
        }
      }
      size_t fp = 0;
      auto t2 = std::chrono::steady_clock::now();
      for (size_t q = 0; q < queries; ++q) fp += reader.MayMatch(rng());
      auto t3 = std::chrono::steady_clock::now();
      const double fpr = static_cast<double>(fp) / queries;
      const double bpk = 8.0 * f.size() / n;
      const double bound = -std::log2(std::getenv("MEASURED") ? fpr : model);
      std::printf("%9zu %6.2f %8.3f %10.6f %10.3f %8.2f %6d %6d %8.4f %8.1f %8.1f %6.1f %8.3f\n", n, b, bpk, fpr,
                  bound, 100 * (bpk / bound - 1), st.layers, st.columns,
                  double(st.pivots) / st.slots,
                  std::chrono::duration<double, std::nano>(t1 - t0).count() / n,
                  std::chrono::duration<double, std::nano>(t3 - t2).count() / queries, 100.0 * st.wide_blocks / st.blocks, ChooseBurrShape(n, b).expected_fpr / model);
    }
  }
}
