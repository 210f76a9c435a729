// Banding with window tables settles every layer exactly as the plain
// algorithm burr_banding.h describes (one XOR a step): the same pivots, the
// same codes, the same keys bumped, at the default tuning and at others
// that bump more or less often (so tables are dropped and rebuilt). The
// reference's walk is its own; its bumping follows the same rule, written
// again.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "filters/burr_banding.h"
#include "filters/burr_hashing.h"
#include "test_util.h"

namespace sstfilter {
namespace {

using test::RandomHashes;

// The reference: buckets left to right, each from its highest start down;
// a walk XORs the pivot at its row's lowest set bit until it finds a free
// slot or cancels; a key that cancels with a fingerprint left sets the
// bucket's threshold, and the keys below it are bumped (those in, taken
// back out).
void ReferenceBand(const std::vector<uint64_t>& hashes, uint64_t slots, const BurrTuning& tuning,
                   BurrBandedLayer* layer, std::vector<uint64_t>* bumped) {
  const int log = tuning.bucket_log;
  const uint64_t starts = slots - (kBurrRibbonWidth - 1);
  layer->slots = slots;
  layer->rows.assign(slots, 0);
  layer->rhs.assign(slots, 0);
  layer->codes.assign((starts + (uint64_t{1} << log) - 1) >> log, 0);
  layer->pivots = 0;
  auto start = [&](size_t k) { return BurrHashing::Start(hashes[k], slots); };
  for (size_t first = 0, end = 0; first < hashes.size(); first = end) {
    const uint64_t bucket = start(first) >> log;
    for (end = first; end < hashes.size() && (start(end) >> log) == bucket;) ++end;
    std::vector<std::pair<uint32_t, uint64_t>> fills;  // offset, slot
    for (size_t k = end; k-- > first;) {
      const uint32_t offset = static_cast<uint32_t>(start(k) - (bucket << log));
      uint64_t i = start(k);
      uint64_t row = BurrHashing::Row(hashes[k]);
      uint32_t fp = BurrHashing::Fingerprint(hashes[k]);
      while (row != 0 && layer->rows[i] != 0) {
        row ^= layer->rows[i];
        fp ^= layer->rhs[i];
        if (row == 0) break;
        const int skip = __builtin_ctzll(row);
        i += skip;
        row >>= skip;
      }
      if (row != 0) {
        layer->rows[i] = row;
        layer->rhs[i] = fp;
        fills.emplace_back(offset, i);
        continue;
      }
      if (fp == 0) continue;
      unsigned code = 1;
      while (code < 3 && tuning.thresholds[code] <= offset) ++code;
      const uint32_t threshold = tuning.thresholds[code];
      while (!fills.empty() && fills.back().first < threshold) {
        layer->rows[fills.back().second] = 0;
        layer->rhs[fills.back().second] = 0;
        fills.pop_back();
      }
      layer->codes[bucket] = static_cast<uint8_t>(code);
      for (size_t j = first; j < end && start(j) - (bucket << log) < threshold; ++j) {
        bumped->push_back(hashes[j]);
      }
      break;
    }
    layer->pivots += fills.size();
  }
}

// Bands `hashes` both ways and compares; returns the share of slots that
// became pivots, the keys bumped and the windows crossed by table, so that
// callers can check the case was not a trivial one.
struct Banded {
  double pivot_share;
  size_t bumped;
  double window_steps_per_key;
};

Banded ExpectSameBanding(std::vector<uint64_t> hashes, const BurrTuning& tuning) {
  std::sort(hashes.begin(), hashes.end());
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  const uint64_t slots = BurrLayerSlots(hashes.size(), tuning);
  BurrBandedLayer expected, actual;
  std::vector<uint64_t> expected_bumped, actual_bumped;
  ReferenceBand(hashes, slots, tuning, &expected, &expected_bumped);
  BandLayer(hashes, slots, tuning, &actual, &actual_bumped);
  EXPECT_EQ(actual.slots, expected.slots);
  EXPECT_EQ(actual.pivots, expected.pivots);
  EXPECT_TRUE(actual.rows == expected.rows);
  EXPECT_TRUE(actual.rhs == expected.rhs);
  EXPECT_TRUE(actual.codes == expected.codes);
  EXPECT_TRUE(actual_bumped == expected_bumped);
  return Banded{static_cast<double>(expected.pivots) / static_cast<double>(slots),
                expected_bumped.size(),
                static_cast<double>(actual.window_steps) / static_cast<double>(hashes.size())};
}

// A layer nearly full, with keys bumped: buckets were taken back out, and
// walks crossed full windows by their tables (at the default load, about
// ten a key).
void ExpectBusy(const Banded& b) {
  EXPECT_GT(b.pivot_share, 0.9);
  EXPECT_GT(b.bumped, 0u);
  EXPECT_GT(b.window_steps_per_key, 1.0);
}

TEST(BurrBandingTest, WindowTablesBandAsSingleStepsDo) {
  ExpectSameBanding(RandomHashes(200, 1), BurrTuning());  // two buckets, not overloaded
  for (size_t n : {3000, 50000, 400000}) {
    SCOPED_TRACE(n);
    ExpectBusy(ExpectSameBanding(RandomHashes(n, n), BurrTuning()));
  }
}

// Buckets of 2^log starts with thresholds t1 and t2 (code 3 bumps all).
BurrTuning Buckets(int log, uint32_t t1, uint32_t t2) {
  BurrTuning tuning;
  tuning.bucket_log = log;
  tuning.thresholds[1] = t1;
  tuning.thresholds[2] = t2;
  tuning.thresholds[3] = uint32_t{1} << log;
  return tuning;
}

// Heavier overload bumps a bucket in most buckets (tables dropped often);
// lighter leaves free slots inside the band (windows that never fill);
// other bucket sizes and thresholds move where the undo happens.
TEST(BurrBandingTest, OtherTuningsToo) {
  const std::vector<uint64_t> hashes = RandomHashes(40000, 5);
  for (double load : {0.97, 1.02, 1.15, 1.4}) {
    SCOPED_TRACE(load);
    BurrTuning tuning;
    tuning.load = load;
    const Banded b = ExpectSameBanding(hashes, tuning);
    if (load > 1) ExpectBusy(b);
  }
  ExpectBusy(ExpectSameBanding(hashes, Buckets(5, 4, 12)));
  ExpectBusy(ExpectSameBanding(hashes, Buckets(8, 60, 120)));
}

// A quarter of the hashes crowded into the first starts of the first
// bucket (bumped whole), and evenly spaced hashes (one start a slot: every
// window of the band fills).
TEST(BurrBandingTest, CrowdedAndEvenlySpacedHashes) {
  std::vector<uint64_t> crowded = RandomHashes(20000, 9);
  for (size_t i = 0; i < crowded.size(); i += 4) crowded[i] &= ~uint64_t{0} >> 12;
  const Banded b = ExpectSameBanding(crowded, BurrTuning());
  EXPECT_GT(b.bumped, 5000u / 2);
  std::vector<uint64_t> even;
  const uint64_t step = ~uint64_t{0} / 20000;
  for (uint64_t i = 0; i < 20000; ++i) even.push_back(i * step + i % 7);
  ExpectBusy(ExpectSameBanding(even, BurrTuning()));
}

}  // namespace
}  // namespace sstfilter
