// Cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher, CoNEXT 2014) with
// partial-key cuckoo hashing: two candidate buckets of four slots, f-bit
// fingerprints, 0 reserved for "empty".
//
// Addressing, for a table of B buckets (any B, not only powers of two):
//   i1  = FastRange64(hash, B)                     (high bits of the hash)
//   fp  = 1 + FastRange32(low 32 bits, 2^f - 1)    (never 0)
//   alt(i, fp) = (T(fp) - i) mod B,  T(fp) = FastRange64(fp * C, B)
// alt is an involution, alt(alt(i, fp), fp) == i, so an entry can move
// between its two buckets knowing only where it is and its fingerprint.
//
// Answers to the structure's known weaknesses:
// - A key added many times: an entry whose fingerprint is already in one of
//   its two buckets is not stored again, so repeats cost nothing and never
//   overflow a bucket pair.
// - Power-of-two tables: B is sized from the key count (load up to 95%).
// - Deleting keys: the filter is immutable; there is no delete.
// - Failed placement: when both buckets are full, one of their eight
//   entries moves to its other bucket if that has room; otherwise a random
//   walk of up to kMaxKicks evictions. An entry still homeless goes to a
//   small stash checked by every query; if the stash fills, the table is
//   rebuilt a few percent larger. Never a false negative.
// - Tiny filters (a handful of keys) where no table fits the budget are
//   planned as Bloom filters of the budget (PlanCuckoo, cuckoo_kind.h): the reader
//   dispatches on the trailer's kind.
//
// Space: the builder picks the variant (when kAuto) and fingerprint size
// with the lowest expected FPR whose table fits in n * bits_per_key bits, at
// a load between 50% and 95%. Expected FPR ~ 1 - (1 - 1/(2^f-1))^(8 load).

#pragma once

#include <memory>

#include "filters/bits_per_key.h"
#include "filters/filter.h"
#include "format/trailer.h"

namespace sstfilter {

// The trailer's kind bytes of the two bucket tables (docs/format.md).
constexpr FilterKind kCuckooPlainKind{2};
constexpr FilterKind kCuckooSemiSortedKind{3};

enum class CuckooVariant : uint8_t {
  kAuto,        // whichever of the two gives the lower expected FPR
  kPlain,       // 4f bits per bucket
  kSemiSorted,  // 4f - 4 bits per bucket
};

// Smallest budgets for which a large cuckoo filter fits (f = 4 at 95% load:
// semi-sorted needs 3.2 bits/key, plain 4.2); policies reject lower values.
constexpr double kMinCuckooBitsPerKey = 4.0;
constexpr double kMinPlainCuckooBitsPerKey = 4.25;

struct CuckooShape {
  FilterKind kind = kCuckooSemiSortedKind;
  int fp_bits = 0;
  uint64_t num_buckets = 0;
  size_t stash_entries = 0;  // known once placed
  bool fits_budget = true;   // false: no table fits n * bits_per_key bits
};

unsigned CuckooBucketBits(FilterKind kind, int fp_bits);

// The lowest-FPR shape for `num_keys` keys within the budget. Where none
// fits (a handful of keys: a bucket is 12 to 128 bits), the smallest table
// that holds the keys, with fits_budget false; the planner then plans a
// Bloom filter of the budget instead. bits_per_key above kMaxBitsPerKey is
// taken as kMaxBitsPerKey, and NaN or not positive as no budget.
CuckooShape ChooseCuckooShape(size_t num_keys, double bits_per_key,
                              CuckooVariant variant);

// Expected FPR of `shape` holding `num_keys` distinct entries.
double CuckooExpectedFpr(const CuckooShape& shape, size_t num_keys);

// Places `hashes` (no adjacent repeats) in a table of `shape`, growing it
// if placement fails (cuckoo_filter.h's header comment), and appends it
// with its trailer. Requires shape.fits_budget or a caller that accepts
// the smallest table.
void AppendCuckooFilter(CuckooShape shape, const std::vector<uint64_t>& hashes,
                        std::string* dst);

class CuckooBuilder : public FilterBuilder {
 public:
  // Requires kMinCuckooBitsPerKey <= bits_per_key <= kMaxBitsPerKey
  // (clamped defensively, NaN to the minimum).
  CuckooBuilder(double bits_per_key, CuckooVariant variant);

  FilterPlan Plan(size_t num_keys) const override;  // PlanCuckoo (cuckoo_kind.h)

 private:
  double bits_per_key_;
  CuckooVariant variant_;
};

// Readers: cuckoo_reader.h (through NewFilterReader for most callers).

}  // namespace sstfilter
