// A cuckoo table whose entries shorten as it grows, and whose buckets widen
// before they split: the table behind the dynamic cuckoo filter's format
// version 5, the default (design: docs/design/dynamic_cuckoo.md). Its
// entries, buckets and FPR model are in growing_layout.h; this class
// decides where entries go: lookups and copy matches (growing_table.cc),
// inserts and the eviction search (growing_insert.cc), widening and
// splitting (growing_resize.cc).
//
// Growth, without the keys (an entry knows its i1: its bucket, less d(tag)
// when a = 1):
// - widening (slots -> slots + 1) moves no entry;
// - a split (B -> 2B) sends an entry to 2 i1 + b (or that bucket's second
//   bucket), b the first bit of its fp, which it then drops
//   (hash * 2B = 2 i1 + 2r); an entry with L = 0 has no b: it goes to both
//   2 i1 and 2 i1 + 1. M and B both double, so each entry's share of the
//   FPR never changes after it is written.
// Since the second bucket comes from i1 and the tag alone, with no
// structure tied to the split history, the table stays one cuckoo graph
// at every size (the doubling tables of format versions 1 to 3 kept each
// entry within one of 2^k components, whose loads drift apart).
//
// Thread safety: one writer, any number of readers. An eviction path is
// written back to front inside the owner's seqlock (`seq`, odd
// meanwhile), so a reader that found nothing while it changed retries. A
// growth step fills a new table privately; the owner publishes it and
// retires this one.

#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "dynamic/growing_layout.h"

namespace sstfilter {
namespace dynamic_cuckoo {

class GrowingTable : public GrowingLayout {
 public:
  // As GrowingLayout's: an empty table.
  GrowingTable(uint64_t base_buckets, unsigned level, unsigned slots, unsigned fp_bits)
      : GrowingLayout(base_buckets, level, slots, fp_bits) {}

  uint64_t entries() const { return entries_; }
  // Sum over entries of 2^-(kTagBits + L), exact from the counts per
  // length; the model FPR is MatchMass() / B.
  double MatchMass() const;
  double ExpectedFpr() const { return MatchMass() / static_cast<double>(buckets_); }
  uint64_t EntriesOfLength(unsigned L) const { return by_length_[L]; }
  // Counts the entries after raw writes (SetWord). False: a slot or the
  // padding past the last slot holds what no Insert writes.
  bool Recount();

  // Lookups (growing_table.cc).
  SSTFILTER_ALWAYS_INLINE bool Contains(const Probe& p) const {
    return BucketHas(p.i1, p.code) != 0 || BucketHas(p.i2, p.code | SecondBit()) != 0;
  }
  // Contains(ProbeFor(hash)) with no Probe, in two parts so that the
  // common one stays small. HeadsMayMatch tests both buckets' heads against
  // the query's at once: most absent keys find no equal head in either
  // (the quick zero-field test) and stop there with one branch. The
  // second bucket's bit position comes by an add (offset_bits_), its heads
  // by an add (bit a set in each). TailsMatch, out of line, compares the
  // tails of the slots whose heads may be equal.
  struct HeadProbe {
    uint64_t pos1, pos2;  // the buckets' bit positions
    uint64_t x1, x2;      // their head windows xor the query's heads
  };
  SSTFILTER_ALWAYS_INLINE bool HeadsMayMatch(uint64_t hash, HeadProbe* h) const {
    const uint64_t tag = TagFor(hash);
    h->pos1 = FastRange(hash) * bucket_bits_;
    h->pos2 = h->pos1 + offset_bits_[tag];
    if (h->pos2 >= table_bits_) h->pos2 -= table_bits_;
    const uint64_t heads1 = tag * kHeadOnes;
    h->x1 = Window(h->pos1) ^ heads1;
    h->x2 = Window(h->pos2) ^ (heads1 + (kHeadOnes << kTagBits));
    const uint64_t x1 = h->x1, x2 = h->x2;
    return ((((x1 - kHeadOnes) & ~x1) | ((x2 - kHeadOnes) & ~x2)) & heads_top_) != 0;
  }
  // (The probe's fields by value: in registers.)
  bool TailsMatch(uint64_t pos1, uint64_t pos2, uint64_t x1, uint64_t x2, uint64_t hash) const;
  bool TailsMatch(const HeadProbe& h, uint64_t hash) const {
    return TailsMatch(h.pos1, h.pos2, h.x1, h.x2, hash);
  }
  bool ContainsHash(uint64_t hash) const {
    HeadProbe h;
    return HeadsMayMatch(hash, &h) && TailsMatch(h, hash);
  }

  // Copies and erasure by match (growing_table.cc).
  // Entries of p's buckets that match it (of any length).
  unsigned CountMatches(const Probe& p) const;
  struct Found {
    uint64_t bucket;
    unsigned slot;
    uint64_t payload;
  };
  // The entries that match p, at most 2 * kMaxSlots, in slot order.
  unsigned FindMatches(const Probe& p, Found* out) const;
  // Which of found[0..n) (n >= 1) is the longest: the one Erase takes.
  static unsigned Longest(const Found* found, unsigned n) {
    unsigned best = 0;
    for (unsigned j = 1; j < n; ++j) {
      if (PayloadLength(found[j].payload) > PayloadLength(found[best].payload)) best = j;
    }
    return best;
  }
  // The payload of the longest entry, in the buckets of first bucket i1,
  // that is a prefix of `entry` (a = 0, no longer than it): what covers
  // every key `entry` covers. 0: none.
  uint64_t LongestPrefix(uint64_t i1, uint64_t entry) const;
  // Frees a slot of `bucket` whose entry has a prefix elsewhere in its own
  // buckets: removes it and returns its first bucket, its payload
  // (`removed`) and that prefix's (`payload`), for the owner to count.
  // False: no such entry.
  bool MergeOneCopy(uint64_t bucket, uint64_t* i1, uint64_t* removed, uint64_t* payload);
  void RemoveAt(uint64_t bucket, unsigned slot);
  // Removes the longest entry that matches p. That entry may be another
  // key's, and it is then safe to remove: a key whose entry matches p at
  // length L has p's i1, tag and first L fp bits, so p's own entry, no
  // longer than L (it is the longest), matches that key too.
  // False: nothing matched, nothing changed.
  bool Erase(const Probe& p);

  // Inserts (growing_insert.cc).
  // Writes the key's entry at length L in a free slot of its buckets, else
  // along the shortest eviction path a bounded breadth-first search finds,
  // inside seq's odd phase (null: no readers). False: no room, nothing
  // changed.
  bool Insert(const Probe& p, unsigned L, std::atomic<uint64_t>* seq = nullptr);
  // Insert's common case in one read of each bucket's heads: when no entry
  // matches p, writes its entry at length L as Insert does (kPlaced, or
  // kNoRoom with nothing changed); when one does, writes nothing
  // (kMatched: the caller counts copies).
  enum class NewKey { kPlaced, kMatched, kNoRoom };
  NewKey InsertIfNew(const Probe& p, unsigned L, std::atomic<uint64_t>* seq);
  // Places entry e (a = 0) of a key whose first bucket is i1, as Insert
  // (no readers).
  bool Place(uint64_t i1, uint64_t e);

  // Growth into an empty `to` (growing_resize.cc). Widen: same base and
  // level, to->slots() >= slots(), to->fp_bits() >= the longest entry's L;
  // never fails.
  void WidenInto(GrowingTable* to) const;
  // Split: same base, level + 1, to->fp_bits() >= the longest L - 1. Each
  // entry is placed from its new i1 as Insert would; those that find both
  // buckets full wait until every other entry is in, and those that then
  // find no eviction path go to `unplaced` (first bucket, entry with a = 0)
  // for the owner to count as copies, or to give up on `to`.
  struct Unplaced {
    uint64_t i1, entry;
  };
  void SplitInto(GrowingTable* to, std::vector<Unplaced>* unplaced) const;

 private:
  void Count(uint64_t entry, int64_t d) {
    entries_ += static_cast<uint64_t>(d);
    by_length_[LengthOf(entry)] += static_cast<uint64_t>(d);
  }
  bool SearchPlace(uint64_t i1, uint64_t e, std::atomic<uint64_t>* seq);
  // InsertIfNew slot by slot: every case, where InsertIfNew itself takes
  // only the common one (no head equal to the query's, and a free slot at
  // the emptier bucket's first zero head) and gives it the rest.
  NewKey InsertIfNewBySlot(const Probe& p, unsigned L, std::atomic<uint64_t>* seq);
  // Writes entry e (a = 0) of probe p in a free slot of its emptier bucket
  // (free1, free2: the buckets' free slots as bits, at least one set).
  void PlaceFree(const Probe& p, uint64_t e, uint32_t free1, uint32_t free2);
  // Whether the path from nodes_[node] up to its root passes each bucket
  // once, so that moving entries along it never overwrites a slot another
  // move still reads.
  bool PathIsSimple(int32_t node) const;

  uint64_t entries_ = 0;
  uint64_t by_length_[kMaxFpBits + 1] = {};

  // Eviction search bounds: 2 roots, a child per slot, so with 4 slots level
  // 6 ends at 10922 nodes and is cut at kMaxNodes (7 slots: within level 5).
  static constexpr size_t kMaxNodes = 8192;
  static constexpr unsigned kMaxDepth = 7;
  struct Node {
    uint64_t bucket;
    int32_t parent;
    uint8_t slot;
  };
  std::vector<Node> nodes_;
};

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
