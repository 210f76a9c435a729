// Bumped ribbon filter: a retrieval filter within about 1% of the space
// bound at SST sizes. Each key's r-bit fingerprint is stored as the
// solution of a linear system over GF(2): a key's row covers 64 consecutive
// slots of the layer from its start slot, and the XOR of the solution
// words the row selects, one bit per fingerprint bit, is the fingerprint
// (burr_banding.h builds the system). A query reads at most two 64-slot
// blocks of r or r+1 solution words and compares; an added key always
// matches, any other with probability 2^-r (2^-(r+1) in blocks with the
// extra column).
//
// Layers: a layer holds about as many keys as slots (overloaded), and the
// keys that do not fit are bumped, by a 2-bit threshold per bucket of 64
// starts, to the next, smaller layer; the last layer bumps nothing. A query
// reads its bucket's threshold first, so a key bumped from layer 0 costs
// one more layer's probe (a few percent of queries).
//
// Fractional bits/key: the budget left over by whole columns buys an extra
// column in the upper blocks of each layer (block k's keys only look at
// blocks k and k+1, so column counts must not fall from one block to the
// next), as RocksDB's Ribbon filter does.
//
// Failure cannot reach the user: a layer always settles (code 3 bumps a
// whole bucket), so a build fails only if kBurrMaxLayers layers leave keys
// over, which is retried with another seed, up to kMaxBurrAttempts times;
// then the plan's Bloom filter of the budget is written (planner.h).
//
// Memory while building, on top of the 8 bytes/key of hashes the builder
// holds: 12 bytes per slot of layer 0 (row 8, fingerprint 4) and the
// smaller layers' while they are banded, 12.5 KiB of window tables
// (burr_banding.cc), and each layer's solution.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "filters/filter.h"

namespace sstfilter {

// What a plan may ask for. Below 4 bits/key a Bloom filter of the budget
// is as good, as for binary fuse (fuse_filter.h). Starts are 32-bit block
// counts times 64, which bounds the keys.
constexpr double kMinBurrBitsPerKey = 4.0;
constexpr uint64_t kMaxBurrKeys = (uint64_t{1} << 32) - 1;

// How hard a build tries: each layer bumps about 5% of its keys, so
// 12 layers leave none over unless the seed is bad, and a bad seed is
// retried this many times before the plan's Bloom filter is written. Both
// bounds are also format limits: the header stores the layer count and
// the attempt that succeeded, and a reader refuses larger ones.
constexpr int kBurrMaxLayers = 12;
constexpr int kMaxBurrAttempts = 4;

// The format's fixed parts (docs/format.md). Fingerprints are 32 bits: at
// most 32 columns, so at most 31 below a block's extra one.
constexpr int kMaxBurrColumns = 32;
constexpr size_t kBurrHeaderSize = 4;
constexpr size_t kBurrLayerHeaderSize = 8;

// What a build produced, for tests and tools.
struct BurrBuildStats {
  int attempts = 0;
  int layers = 0;
  uint64_t slots = 0;       // all layers
  uint64_t pivots = 0;      // all layers
  size_t layer0_keys = 0;   // keys settled in layer 0
  int columns = 0;          // r: every block has r or r + 1 columns
  uint64_t wide_blocks = 0; // blocks with r + 1
  uint64_t blocks = 0;
};

// The plan of a bumped ribbon filter for `num_keys` keys at
// `bits_per_key` (n * bits_per_key / 8 bytes, trailer included), from the
// layers a build is expected to make (a share kBurrExpectedBumped of each
// layer's keys bumped to the next).
struct BurrShape {
  size_t payload_bytes = 0;  // 0: the budget buys no bumped ribbon filter
  int columns = 0;           // r, expected
  double wide_share = 0;     // of blocks with r + 1 columns, expected
  double expected_fpr = 1;   // (1 - wide) 2^-r + wide 2^-(r+1)
};
BurrShape ChooseBurrShape(size_t num_keys, double bits_per_key);

// The share of a layer's keys bumped at the default tuning, from 2,048
// keys up (tools/research/burr_sizing: 4.3% at 10k, 4.8% at 100k to 2M
// keys); smaller layers are expected to bump in proportion to their size.
constexpr double kBurrExpectedBumped = 0.048;

// Bands `keys` (distinct; consumed) into a bumped ribbon filter of exactly
// `payload_bytes` payload bytes (trailer not included) and appends it with
// its trailer. Returns false, having appended nothing, if no attempt fits
// (kBurrMaxLayers layers leave keys over every time, or the budget does
// not buy one column); *keys then holds the hashes given.
bool AppendBurrFilter(size_t payload_bytes, std::vector<uint64_t>* keys, std::string* dst,
                      BurrBuildStats* stats = nullptr);

// Reader: burr_reader.h (through NewFilterReader for most callers).

}  // namespace sstfilter
