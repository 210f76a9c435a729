#include "fpr_model.h"

#include <algorithm>
#include <cmath>

namespace filter_bench {

double CacheLocalBloomFpr(double bits_per_key, int probes) {
  constexpr double kLineBits = 512;
  const double mean = kLineBits / bits_per_key;  // keys per line
  // Sum over the Poisson-distributed line load j of the FPR of a line
  // holding j keys: (1 - (1 - 1/512)^(probes j))^probes.
  const int max_load = static_cast<int>(mean + 12 * std::sqrt(mean) + 30);
  double p = std::exp(-mean);  // P(load = 0)
  double fpr = 0;
  for (int j = 0; j <= max_load; ++j) {
    const double bit_set = 1 - std::pow(1 - 1 / kLineBits, probes * j);
    fpr += p * std::pow(bit_set, probes);
    p *= mean / (j + 1);
  }
  return fpr;
}

double BestCacheLocalBloomFpr(double bits_per_key) {
  double best = 1;
  for (int probes = 1; probes <= 40; ++probes) {
    best = std::min(best, CacheLocalBloomFpr(bits_per_key, probes));
  }
  return best;
}

double CuckooFpr(double bits_per_key, bool semi_sorted) {
  // Load strictly below 95%: where 0.95 * bits_per_key is a whole number
  // (20 bits/key), whole buckets cannot reach 95% exactly within the
  // budget, and a filter takes the next shorter fingerprint.
  const double slot_bits = std::ceil(0.95 * bits_per_key - 1e-9) - 1;
  if (slot_bits < 1) return 1;
  const double load = slot_bits / bits_per_key;
  const double fp_bits = semi_sorted ? slot_bits + 1 : slot_bits;
  const double one_match = 1 / (std::exp2(fp_bits) - 1);
  return 1 - std::pow(1 - one_match, 8 * load);
}

double FuseFpr(double bits_per_key) {
  const double fp_bits = std::min(32.0, std::floor(bits_per_key / 1.25 + 1e-9));
  return fp_bits < 1 ? 1 : std::exp2(-fp_bits);
}

double ExpectedFpr(const std::string& filter, double bits_per_key) {
  if (filter == "fuse") return FuseFpr(bits_per_key);
  // Within 3% of the bound from 10k keys (plugin/filters/burr_filter.h).
  if (filter == "burr") return std::exp2(-std::min(32.0, bits_per_key / 1.03));
  if (filter == "cuckoo_plain") return CuckooFpr(bits_per_key, false);
  if (filter == "cuckoo_semisorted") return CuckooFpr(bits_per_key, true);
  if (filter == "cuckoo") {
    return std::min(CuckooFpr(bits_per_key, false),
                    CuckooFpr(bits_per_key, true));
  }
  return BestCacheLocalBloomFpr(bits_per_key);
}

double FprUpperBound(double expected, double factor, uint64_t queries) {
  const double p = std::min(1.0, expected * factor);
  return std::min(1.0, p + 4 * std::sqrt(p * (1 - p) / queries));
}

double FprLowerBound(double bits_per_key, uint64_t queries) {
  const double p = std::exp2(-bits_per_key);
  return std::max(0.0, p - 4 * std::sqrt(p * (1 - p) / queries));
}

}  // namespace filter_bench
