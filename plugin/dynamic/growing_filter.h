// The dynamic cuckoo filter's next format as a set of key hashes: one
// GrowingTable (growing_table.h), grown by widening its buckets from 5 to
// 8 slots (steps of 1.20x, 1.17x, 1.14x: no entry moves) and then
// splitting every bucket into two of 5 (1.25x), so that its load stays
// between about 76% and 95% where a doubling swings it from 47%.
//
// FPR budget. An entry's share of the FPR never changes after it is
// written (growing_table.h), so the target is shared among the entries by
// when they are written. Growth is planned in phases, one per split: the
// phase that ends with the table at expected_max_keys is the last one
// planned, J in all. The entries of phases 1..p may spend
// (1 - kReserve) * target * p / J, and each widening or split picks the
// shortest fingerprint for new entries that keeps the whole phase, filled
// to the load limit at 8 slots, within that; a phase that spends less
// leaves the rest to later ones. Past the plan, phase J + j may add
// kReserve * target * 6 / (pi^2 j^2): the filter still grows, with longer
// fingerprints, and the sum stays within the target.
//
// No false negatives for a key inserted and not erased, provided every
// Erase names an inserted key (as DynamicCuckooFilter). One writer; not yet
// safe for concurrent readers.

#pragma once

#include <cstdint>
#include <memory>

#include "dynamic/growing_table.h"
#include "sstfilter/dynamic_cuckoo.h"

namespace sstfilter {
namespace dynamic_cuckoo {

class GrowingFilter {
 public:
  static constexpr unsigned kStartSlots = 5;
  static constexpr double kMaxLoad = 0.95;
  static constexpr double kReserve = 1.0 / 16;
  // New entries get at least this many fp bits, however loose the target.
  // An entry whose fp is used up (L = 0) is copied to both children at
  // every later split, so a class of entries written at L takes 2^-L of
  // the table once its fp is used up: at 8, 0.4% per class.
  static constexpr unsigned kMinEntryBits = 8;

  // InvalidArgument as DynamicCuckooFilter::Create (target_fpr in (0, 0.5),
  // initial_capacity >= 1, expected_max_keys 0 or >= initial_capacity).
  static DynamicStatus Create(const DynamicCuckooOptions& options,
                              std::unique_ptr<GrowingFilter>* out);

  DynamicStatus InsertHash(uint64_t hash);
  DynamicStatus EraseHash(uint64_t hash);
  bool ContainsHash(uint64_t hash) const { return table_->Contains(table_->ProbeFor(hash)); }

  uint64_t Size() const { return size_; }
  size_t MemoryBytes() const { return table_->MemoryBytes(); }
  double ExpectedFpr() const { return table_->ExpectedFpr(); }
  const GrowingTable& table() const { return *table_; }
  unsigned phase() const { return phase_; }
  unsigned planned_phases() const { return planned_; }
  unsigned new_entry_bits() const { return new_l_; }  // L of entries written now

 private:
  GrowingFilter() = default;
  // The FPR the entries of phases 1..phase may spend.
  double Allowed(unsigned phase) const;
  // The shortest L for new entries that keeps a phase ending at 8 slots of
  // `buckets` buckets within Allowed(phase), given the entries present
  // (counts by length).
  unsigned ChooseLength(const uint64_t* by_length, unsigned max_length, uint64_t buckets,
                        unsigned phase) const;
  // Widens the table, or splits it once its buckets have kMaxSlots
  // (into buckets of kStartSlots, or wider if that split cannot place
  // every entry). kFull when the table would pass kMaxBuckets or cannot
  // be allocated; nothing changed then.
  DynamicStatus Grow();

  DynamicCuckooOptions options_;
  std::unique_ptr<GrowingTable> table_;
  unsigned phase_ = 1;
  unsigned planned_ = 1;
  unsigned new_l_ = 0;
  uint64_t size_ = 0;
};

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
