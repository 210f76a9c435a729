// The dynamic cuckoo filter's format version 5 as a set of key hashes:
// one GrowingTable (growing_table.h), grown by widening its buckets from 4
// to 7 slots (steps of 1.25x, 1.20x, 1.17x: no entry moves) and then
// splitting every bucket into two of 4 (1.14x), so that its load stays
// between about 76% and 95% where a doubling swings it from 47%, and a
// bucket's heads fit one 64-bit word (growing_table.h).
//
// FPR budget. An entry's share of the FPR never changes after it is
// written (growing_table.h), so the target is shared among the entries by
// when they are written. Growth is planned in phases, one per split: the
// phase that ends with the table at expected_max_keys is the last one
// planned, J in all. With J >= 2 the entries of phases 1..p may spend
// s * target * p / J (s = 1 - kReserve, or first_member_fpr_share), and
// each split picks the shortest fingerprint for new entries that keeps
// its whole phase, filled to the load limit at 7 slots, within that; a
// phase that spends less leaves the rest to later ones. With J = 1 (no
// growth planned) the plan is the initial table alone, which may spend
// s * target, and its widenings are the first phase past the plan. The
// j-th phase past the plan may add (1 - s) * target * 6 / (pi^2 j^2): the
// filter still grows, with longer fingerprints, and the sum stays within
// the target (BudgetFor).
//
// No false negatives for a key inserted and not erased, provided every
// Erase names an inserted key (as DynamicCuckooFilter). One writer and any
// number of readers (ContainsHash, PrefetchHash, Size, MemoryBytes,
// ExpectedFpr), as DynamicCuckooFilter promises: a reader that finds
// nothing while an eviction path or a growth step ran retries (seqlock);
// a replaced table is retired, its memory returned and its addresses kept
// until the filter dies.
//
// Copies: a key inserted again takes a slot like any key, or an eviction
// path. A copy with neither, while the table is below kCopyGrowShare of
// its load limit, is counted beside the longest entry it matches
// (`extra_`: first bucket and payload -> copies) instead of making the
// table grow. A split counts an entry it cannot place beside the longest
// entry of its buckets that is a prefix of it (an earlier copy, shorter by
// the splits since), or takes for it the slot of a copy that it counts
// beside such a prefix; either way the counts that were beside the entry
// that leaves go with it. A count acts as that many entries equal to the
// one it is beside, which covers every key the copy did: lookups need only
// the entry, and Erase takes a count before the entry. So a count always
// sits beside an entry of its payload (Load checks it): beside none, the
// copy limit and Erase would not see it, and an Erase could take the last
// entry of a key still held. A count costs 21-43
// bytes (copy_counts.h) where a slot costs 2-3, so copies take slots
// where they can.
//
// Options: first_member_fpr_share s, when set, is the share of the target
// the planned phases may spend (1 - kReserve otherwise), and
// first_member_max_load the load limit at every width (kMaxLoad
// otherwise): the filter has one table, which is its first member.

#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dynamic/copy_counts.h"
#include "dynamic/growing_table.h"
#include "sstfilter/dynamic_options.h"

namespace sstfilter {
namespace dynamic_cuckoo {

class GrowingFilter {
 public:
  // A new table, and each level's first table, starts at the narrowest
  // bucket width; copies widen it from there.
  static constexpr unsigned kStartSlots = GrowingLayout::kMinSlots;
  static constexpr double kMaxLoad = 0.95;
  static constexpr double kReserve = 1.0 / 16;
  // Below this share of the load limit a copy with no room is counted; at
  // or above it the table grows. A split leaves the table at 0.68-0.76 of
  // the limit, so a lower share makes copies widen a just-split table.
  static constexpr double kCopyGrowShare = 0.8;
  // New entries get at least this many fp bits, however loose the target.
  // An entry whose fp is used up (L = 0) is copied to both children at
  // every later split, so a phase's entries written at L take 2^-L of the
  // table once their bits are spent (4 splits later at 4, 1/16). The
  // budget asks for more than 4 at any target below about 2% unless the
  // filter plans no growth (at 0.1%: 5 then, 8-9 over the default plan).
  static constexpr unsigned kMinEntryBits = 4;

  // InvalidArgument as DynamicCuckooFilter::Create: target_fpr in
  // (0, 0.5), initial_capacity in [1, 2^40], expected_max_keys at most
  // 2^40 (below initial_capacity: no growth planned), the share in (0, 1)
  // and the load in [0.5, 0.95] when set. kFull: no memory.
  static DynamicStatus Create(const DynamicCuckooOptions& options,
                              std::unique_ptr<GrowingFilter>* out);

  DynamicStatus InsertHash(uint64_t hash);
  DynamicStatus EraseHash(uint64_t hash);
  // Takes `other`'s options, entries, counts and table (`other` is left
  // unusable) and publishes that table as a growth step publishes its
  // own: a reader running across the call answers from one table or the
  // other, and one that finds nothing in the old table retries in the new.
  // Writer only; `other` must have had no readers.
  void ReplaceWith(GrowingFilter&& other);
  // Most absent keys end at the heads, with no call (so no registers to
  // save); the rest compare tails, and only a query that found nothing
  // while a writer ran goes to ContainsSlow.
  bool ContainsHash(uint64_t hash) const {
    const uint64_t s1 = seq_.load(std::memory_order_acquire);
    const GrowingTable* t = published_.load(std::memory_order_acquire);
    GrowingTable::HeadProbe h;
    if (!t->HeadsMayMatch(hash, &h)) {
      // Not found: valid only if no entry moved and no table was replaced.
      std::atomic_thread_fence(std::memory_order_acquire);
      if (seq_.load(std::memory_order_relaxed) == s1 && (s1 & 1) == 0) return false;
      return ContainsSlow(hash);
    }
    return t->TailsMatch(h, hash) || ContainsSlow(hash);
  }
  SSTFILTER_ALWAYS_INLINE void PrefetchHash(uint64_t hash) const {
    const GrowingTable* t = published_.load(std::memory_order_acquire);
    t->PrefetchBuckets(t->ProbeFor(hash));
  }

  uint64_t Size() const { return size_.load(std::memory_order_relaxed); }
  size_t MemoryBytes() const {
    return published_.load(std::memory_order_acquire)->MemoryBytes() +
           side_bytes_.load(std::memory_order_relaxed);
  }
  // Copies counted beside their entries (tests).
  uint64_t ExtraCopies() const;
  // Whether every count sits beside an entry of its payload in its
  // buckets, where CopiesOf and Erase find it (tests).
  bool CountsBesideEntries() const;
  double ExpectedFpr() const { return published_.load(std::memory_order_acquire)->ExpectedFpr(); }
  const DynamicCuckooOptions& options() const { return options_; }
  // The writer's table (not for readers while a writer runs).
  const GrowingTable& table() const { return *table_; }

  // Encoding (growing_format.cc, docs/format.md): the options, the size and
  // the table; `exact`, for checked mode, is appended by the caller.
  void SaveTo(std::string* out) const;
  // Reads what SaveTo wrote from `bytes` (the options checked by Create,
  // the table's shape against them and the input's length, every slot);
  // kCorrupt otherwise. On success *consumed is the bytes read.
  static DynamicStatus LoadFrom(std::string_view bytes, size_t* consumed,
                                std::unique_ptr<GrowingFilter>* out);
  unsigned phase() const { return phase_; }
  unsigned planned_phases() const { return planned_; }
  unsigned new_entry_bits() const { return new_l_; }  // L of entries written now

 private:
  GrowingFilter() = default;
  // For the growth step that makes the table (level, slots): whether it
  // chooses the fingerprint length (a phase's first step: the table's
  // creation or a split, or with no growth planned the first widening),
  // and if so the FPR every entry written by the phase's end may add up
  // to, and the width it ends at (kMaxSlots; the initial table alone when
  // no growth is planned).
  struct Budget {
    bool choose;
    unsigned end_slots;
    double allowed;
  };
  Budget BudgetFor(unsigned level, unsigned slots) const;
  // The shortest L for new entries that keeps the entries present (counts
  // by length) and those the step adds, up to its end at the load limit,
  // within the budget.
  unsigned ChooseLength(const uint64_t* by_length, unsigned max_length, uint64_t buckets,
                        const Budget& budget) const;
  // Widens the table, or splits it once its buckets have kMaxSlots
  // (into buckets of kStartSlots, or wider if that split cannot place
  // every entry). kFull when the table would pass kMaxBuckets or cannot
  // be allocated; nothing changed then.
  DynamicStatus Grow();
  // Makes `t` the table readers see, and retires the one it replaces.
  void Publish(std::unique_ptr<GrowingTable> t);
  // extra_'s key for a copy of `payload` in the pair of first bucket i1
  // (i1 < 2^39, payload < 2^57: 96 bits).
  static uint64_t ExtraA(uint64_t i1, uint64_t payload) { return i1 | ((payload >> 32) << 39); }
  static uint32_t ExtraB(uint64_t payload) { return static_cast<uint32_t>(payload); }
  static uint64_t ExtraI1(uint64_t a) { return a & ((uint64_t{1} << 39) - 1); }
  static uint64_t ExtraPayload(uint64_t a, uint32_t b) { return ((a >> 39) << 32) | b; }
  void AddExtra(uint64_t i1, uint64_t payload);
  // Copies of p's key: its matches and their counts. `longest`: the
  // longest match's payload (0: none).
  unsigned CopiesOf(const GrowingTable::Probe& p, uint64_t* longest) const;
  // The counts after a split into `to` (each follows its entry), plus the
  // entries the split could not place: each counted beside a prefix of it,
  // or placed where a copy in its buckets was counted beside a prefix of
  // that copy; an entry counted so brings its own counts along. False: one
  // found neither.
  bool SplitCounts(GrowingTable* to, const std::vector<GrowingTable::Unplaced>& unplaced,
                   CopyCounts* out) const;
  // ContainsHash in full: heads and tails, retried while it finds nothing
  // and a writer moved entries or replaced the table meanwhile.
  bool ContainsSlow(uint64_t hash) const;
  // The base bucket count and planned phases the options give.
  static uint64_t BaseFor(const DynamicCuckooOptions& options);

  DynamicCuckooOptions options_;
  double max_load_ = kMaxLoad;
  double plan_share_ = 1 - kReserve;  // of the target, for the planned phases
  std::vector<std::unique_ptr<GrowingTable>> owned_;  // every table, retired or not
  GrowingTable* table_ = nullptr;                     // the writer's: owned_.back()
  uint64_t grow_at_ = 0;  // entries at the load limit: floor(max_load_ * capacity)
  std::atomic<GrowingTable*> published_{nullptr};
  std::atomic<uint64_t> seq_{0};  // odd while entries move or the table changes
  std::atomic<uint64_t> size_{0};
  CopyCounts extra_;
  std::atomic<size_t> side_bytes_{0};  // extra_'s
  unsigned phase_ = 1;
  unsigned planned_ = 1;
  unsigned new_l_ = 0;
};

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
