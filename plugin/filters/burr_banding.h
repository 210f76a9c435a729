// Banding with bumping: one layer of a bumped ribbon filter's linear
// system, solved row by row as keys arrive in start order (Dillinger and
// Walzer's on-the-fly Gaussian elimination), with the keys that do not fit
// bumped to the next layer by a per-bucket threshold (Dillinger,
// Hübschle-Schneider, Sanders and Walzer, "Fast Succinct Retrieval and
// Approximate Membership using Ribbon", 2022).
//
// A key is one equation over GF(2): its 64-bit row, placed at its start
// slot, times the solution (a column of bits per fingerprint bit) equals
// its fingerprint. Slot i holds at most one row whose lowest set bit is i
// (the pivot). Adding a row XORs it with the pivot rows in its way until it
// finds a free pivot slot; a row that cancels to zero was implied by the
// rows before it (its fingerprint must cancel too, or it does not fit).
//
// Buckets are settled left to right; within a bucket, keys go in from the
// highest start down, so the keys most likely not to fit (low starts,
// where the band is already crowded by the bucket to the left) come last.
// When one does not fit, the bucket's threshold becomes the smallest coded
// value above its offset: the keys below it are taken back out (their
// pivots were the last set, so clearing them undoes them exactly) and
// bumped. Layers are overloaded (more keys than slots), so almost every
// slot ends up a pivot: the space over the bound is what stays free, the
// 2-bit codes, and the small last layers.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sstfilter {

// The sizing and bumping knobs. The defaults are the format's (the reader
// assumes them); tools/research/burr_sizing measures others.
struct BurrTuning {
  double load = 1.05;  // keys per start slot
  int bucket_log = 7;
  uint32_t thresholds[4] = {0, 16, 40, 128};
};

// Slots (a multiple of 64, at least 64) of a layer for `num_keys` keys.
uint64_t BurrLayerSlots(size_t num_keys, const BurrTuning& tuning);

// One layer's system after banding.
struct BurrBandedLayer {
  uint64_t slots = 0;
  std::vector<uint64_t> rows;    // per slot; 0 for a free slot
  std::vector<uint32_t> rhs;     // per slot: the row's fingerprint bits
  std::vector<uint8_t> codes;    // per bucket: its threshold code (0-3)
  size_t pivots = 0;
  size_t window_steps = 0;  // windows crossed by their tables (burr_banding.cc)
};

// Bands `hashes` (this layer's values, sorted ascending, distinct) into a
// layer of `slots` slots; appends the values of the keys bumped to
// *bumped, in ascending order.
void BandLayer(const std::vector<uint64_t>& hashes, uint64_t slots,
               const BurrTuning& tuning, BurrBandedLayer* layer,
               std::vector<uint64_t>* bumped);

struct BurrBuildStats;  // burr_filter.h

// AppendBurrFilter (burr_filter.h) at another tuning, for
// tools/research/burr_sizing and tests. The reader assumes the default
// bucket size and thresholds: other values give filters only the tool's
// own accounting can read.
bool AppendBurrFilter(size_t payload_bytes, std::vector<uint64_t>* keys, const BurrTuning& tuning,
                      std::string* dst, BurrBuildStats* stats);

}  // namespace sstfilter
