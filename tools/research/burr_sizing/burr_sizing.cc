// Measures the bumped ribbon filter's space over the bound, FPR and speed
// at a range of key counts and bits/key, for choosing its tuning
// (burr_banding.h). Usage: burr_sizing [bits_per_key...]; prints one row
// per (n, bits/key).

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "filters/burr_banding.h"
#include "filters/burr_filter.h"
#include "filters/burr_kind.h"
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
  std::printf("| keys | bits/key | FPR (layout) | FPR (measured) | log2(1/FPR) | over the bound | layers | r | wide blocks | pivots/slot | plan/layout FPR |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::mt19937_64 rng(42);
  for (double b : bits) {
    for (size_t n : sizes) {
      std::vector<uint64_t> keys(n);
      for (auto& k : keys) k = rng();
      std::vector<uint64_t> copy = keys;
      const size_t total = static_cast<size_t>(std::floor(n * b / 8));
      std::string f;
      BurrBuildStats st;
      if (ChooseBurrShape(n, b).payload_bytes != total - kTrailerSize) std::printf("plan differs\n");
      if (!AppendBurrFilter(total - kTrailerSize, &copy, tuning, &f, &st)) {
        std::printf("%9zu build failed\n", n);
        continue;
      }
      Trailer tr;
      tr.kind = kBurrKind;
      tr.param_a = static_cast<uint8_t>(f[f.size() - 7]);
      BurrLayout layout;
      if (!BurrDescriptor::Parse(tr, f.data(), f.size() - kTrailerSize, &layout)) {
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
      for (size_t q = 0; q < queries; ++q) fp += reader.MayMatch(rng());
      const double fpr = static_cast<double>(fp) / queries;
      const double bpk = 8.0 * f.size() / n;
      const double bound = -std::log2(std::getenv("MEASURED") ? fpr : model);
      std::printf("| %zu | %.2f | %.3g | %.3g | %.3f | %.2f%% | %d | %d | %.1f%% | %.4f | %.3f |\n", n, bpk,
                  model, fpr, bound, 100 * (bpk / bound - 1), st.layers, st.columns,
                  100.0 * static_cast<double>(st.wide_blocks) / static_cast<double>(st.blocks),
                  static_cast<double>(st.pivots) / static_cast<double>(st.slots),
                  ChooseBurrShape(n, b).expected_fpr / model);
    }
  }
  std::printf("\nFPR (layout): the filter's own expectation over random non-keys (BurrLayoutFpr: per "
              "layer, the share of starts checked on r or r+1 columns, the rest carried to the next); "
              "FPR (measured): %zu random non-keys; over the bound: bits/key / log2(1/FPR (layout)) - 1; "
              "r: columns of the narrow blocks; plan/layout FPR: the planner's expectation over the "
              "layout's.\n", queries);
}
