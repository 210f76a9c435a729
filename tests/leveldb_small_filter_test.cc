// LevelDB's filters are small (one per 2 KiB of block offsets): measured
// FPR at the sizes LevelDB produces, the cuckoo policy's choice between a
// cuckoo table and a Bloom filter, and the budget below 7.5 bits/key.

#include <iostream>
#include <map>

#include "leveldb_policy.h"
#include "leveldb_test_util.h"
#include "trailer.h"

namespace sstfilter {
namespace {

using test::Keys;
using test::MakeFilter;

struct Measured {
  double fpr = 0;
  double cuckoo_share = 0;  // share of filters that are cuckoo tables
};

// Filters of n hashed keys, each queried with absent keys, 200k queries in
// all: the standard error at an FPR of 2% is 0.03%.
Measured Measure(const leveldb::FilterPolicy& policy, size_t n) {
  const size_t absent_per_filter = std::max<size_t>(100, n);
  const size_t num_filters = 200000 / absent_per_filter;
  double positives = 0, cuckoo = 0;
  for (size_t f = 0; f < num_filters; ++f) {
    const size_t base = f * 1000000;
    const std::string filter = MakeFilter(policy, Keys(n, base, true));
    Trailer trailer;
    size_t payload = 0;
    EXPECT_TRUE(ParseTrailer(filter.data(), filter.size(), &trailer, &payload));
    cuckoo += trailer.kind != FilterKind::kBloom;
    for (const std::string& k : Keys(absent_per_filter, base + 500000, true)) {
      positives += policy.KeyMayMatch(k, filter);
    }
  }
  return {positives / static_cast<double>(num_filters * absent_per_filter),
          cuckoo / static_cast<double>(num_filters)};
}

// Upper bounds at 10 bits/key, about 1.25x the FPR measured when written
// (leveldb.h's table), so > 10 standard errors: a regression fails, luck
// cannot pass.
TEST(LevelDBSmallFilters, FalsePositiveRatesAtLevelDBsSizes) {
  const std::map<size_t, double> bloom_bound = {
      {10, 0.13}, {20, 0.041}, {35, 0.021}, {50, 0.0175}, {100, 0.014}, {1000, 0.011}};
  const std::map<size_t, double> cuckoo_bound = {
      {10, 0.13}, {20, 0.041}, {35, 0.021}, {50, 0.0175}, {100, 0.019}, {1000, 0.0085}};
  const auto bloom = NewLevelDBBloomFilterPolicy(10);
  const auto cuckoo = NewLevelDBCuckooFilterPolicy(10);
  for (const auto& [n, bound] : bloom_bound) {
    const Measured b = Measure(*bloom, n), c = Measure(*cuckoo, n);
    EXPECT_LE(b.fpr, bound) << "bloom, " << n << " keys";
    EXPECT_LE(c.fpr, cuckoo_bound.at(n)) << "cuckoo, " << n << " keys";
    EXPECT_EQ(b.cuckoo_share, 0) << n;
    // The cuckoo policy writes a cuckoo table only where it expects one to
    // beat a Bloom filter of the same bytes: it is never clearly worse.
    EXPECT_LE(c.fpr, b.fpr * 1.1 + 0.001) << n << " keys";
    // Both policies spend exactly the budget; a one-line Bloom filter wins
    // on small filters, cuckoo from a few hundred keys.
    if (n <= 100) {
      EXPECT_EQ(c.cuckoo_share, 0) << n << " keys: Bloom is more accurate";
    } else {
      EXPECT_GE(c.cuckoo_share, 0.95) << n << " keys: cuckoo is more accurate";
    }
    std::cout << n << " keys: FPR bloom " << b.fpr << ", cuckoo " << c.fpr << "\n";
  }
}

// Below 7.5 bits/key LevelDB's budget can leave less than 1 bit/key for the
// payload (e.g. 9 keys at 4 bits/key: 9 bytes, 8 of them trailer); such a
// filter is the smallest Bloom filter instead, 1 bit/key (leveldb.h).
TEST(LevelDBSmallFilters, BelowTheBudgetOnlyWhereItLeavesUnderOneBitPerKey) {
  for (const char* type : {"bloom", "cuckoo_semisorted"}) {
    for (double bits : {1.0, 2.0, 4.0, 7.0, 7.5}) {
      if (std::string(type) != "bloom" && bits < 4) continue;
      auto policy = test::PolicyOrDie(type, bits);
      for (size_t n = 0; n <= 600; ++n) {
        const std::vector<std::string> keys = Keys(n, 1000 * n, true);
        const size_t size = MakeFilter(*policy, keys).size();
        const size_t budget = LevelDBBloomFilterBytes(n, bits);
        if (size <= budget) continue;
        EXPECT_LT(bits, 7.5) << type << " n " << n;
        // The minimum Bloom filter: n bits, sized exactly.
        const size_t min_payload = (n + 7) / 8;
        EXPECT_EQ(size, min_payload + kTrailerSize) << type << " bits " << bits << " n " << n;
      }
    }
  }
}

}  // namespace
}  // namespace sstfilter
