// A cuckoo table whose entries shorten as it grows, and whose buckets widen
// before they split: the table behind the dynamic cuckoo filter's next
// format (design: docs/design/dynamic_cuckoo.md).
//
// B = B0 * 2^k buckets (B0 >= 2, any integer) of w slots (kMinSlots to
// kMaxSlots) of exactly W bits, bit-packed; k counts splits. An entry is
//
//   [a: 1 bit][tag: 8 bits][fp: L bits][1][0 ... 0]     (W = F + 10, L <= F)
//
// tag = the top 8 bits of (hash ^ (hash >> 29)) * 0xbf58476d1ce4e5b9, the
// same at every size; fp = the
// first L bits of the fraction r in hash * B = i1 + r; a = 0 when the entry
// sits in its key's first bucket i1, 1 in its second, i2 = (i1 + d(tag))
// mod B, 1 <= d < B. The marker 1 tells the length, so entries of several
// lengths share a table, and no entry is 0 (an empty slot).
//
// A query reads i1 for entries with a = 0 and i2 for entries with a = 1:
// its code is its entry at length F (a = 0, and a = 1 for i2), and an entry
// e matches code q when ((e ^ q) >> (ctz(e) + 1)) == 0. So each entry is
// compared by the queries of one bucket only, and an entry of length L
// matches an absent key with probability 2^-(8 + L) / B: FPR ~ M / B, M the
// sum of 2^-(8 + L) over entries. The bit a costs a slot bit and halves M's
// weight: it is worth one fp bit.
//
// Growth, without the keys (an entry knows its i1: its bucket, less d(tag)
// when a = 1):
// - widening (w -> w + 1) moves no entry;
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
// Thread safety: one writer, any number of readers. Words are atomics,
// loaded relaxed. A slot is written as two fields (SetSlot says in which
// order); an eviction path is written back to front inside the owner's
// seqlock (`seq`, odd meanwhile), so a reader that found nothing while it
// changed retries. A growth step fills a new table privately; the owner
// publishes it and retires this one.

#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "format/bits.h"
#include "format/coding.h"
#include "format/hash.h"

namespace sstfilter {
namespace dynamic_cuckoo {

class GrowingTable {
 public:
  static constexpr unsigned kTagBits = 8;
  static constexpr unsigned kMinSlots = 4;
  static constexpr unsigned kMaxSlots = 7;  // a bucket's heads fit one word
  // W = F + 10 <= 57 bits (Bits reads at most 57).
  static constexpr unsigned kMaxFpBits = 47;

  // Requires base_buckets >= 2, kMinSlots <= slots <= kMaxSlots,
  // 1 <= fp_bits <= kMaxFpBits. Throws std::bad_alloc when memory is short.
  GrowingTable(uint64_t base_buckets, unsigned level, unsigned slots, unsigned fp_bits);
  ~GrowingTable();
  GrowingTable(const GrowingTable&) = delete;
  GrowingTable& operator=(const GrowingTable&) = delete;

  uint64_t base_buckets() const { return base_; }
  unsigned level() const { return level_; }
  uint64_t num_buckets() const { return buckets_; }
  unsigned slots() const { return w_; }
  unsigned fp_bits() const { return f_; }  // F: the longest fp an entry can hold
  unsigned slot_bits() const { return W_; }
  uint64_t capacity() const { return buckets_ * w_; }
  uint64_t entries() const { return entries_; }
  size_t MemoryBytes() const { return words_count_ * sizeof(uint64_t); }
  // Sum over entries of 2^-(kTagBits + L), exact from the counts per
  // length; the model FPR is MatchMass() / B.
  double MatchMass() const;
  double ExpectedFpr() const { return MatchMass() / static_cast<double>(buckets_); }
  uint64_t EntriesOfLength(unsigned L) const { return by_length_[L]; }

  struct Probe {
    uint64_t i1, i2;
    uint64_t code;  // the key's entry at length F, a = 0
  };
  Probe ProbeFor(uint64_t hash) const {
    Probe q;
    q.i1 = FastRange(hash);
    q.code = CodeFor(hash);
    q.i2 = Second(q.i1, TagFor(hash));
    return q;
  }
  // The first bucket: the high word of hash * B; the fp is the top bits of
  // the low word, below that bucket's resolution.
  uint64_t FastRange(uint64_t hash) const {
    return static_cast<uint64_t>((static_cast<Uint128>(hash) * buckets_) >> 64);
  }
  uint64_t CodeFor(uint64_t hash) const {
    const uint64_t fp = (hash * buckets_) >> (64 - f_);  // f_ >= 1
    return (((TagFor(hash) << f_) | fp) << 1) | 1;
  }
  // Mixed from every bit of the hash (the fold brings the top bits, which
  // i1 and fp take, down to where the multiply spreads them), so that it
  // is independent of i1 and fp: with a multiply alone the measured FPR
  // stood above the model's. It is on a lookup's critical path (it picks
  // i2).
  static uint64_t TagFor(uint64_t hash) { return ((hash ^ (hash >> 29)) * 0xbf58476d1ce4e5b9ULL) >> (64 - kTagBits); }
  uint64_t Second(uint64_t i1, uint64_t tag) const {
    const uint64_t i = i1 + offset_[tag];
    return i >= buckets_ ? i - buckets_ : i;
  }
  uint64_t First(uint64_t i2, uint64_t tag) const {
    const uint64_t d = offset_[tag];
    return i2 >= d ? i2 - d : i2 + buckets_ - d;
  }
  uint64_t SecondBit() const { return uint64_t{1} << (f_ + kTagBits + 1); }
  uint64_t TagOf(uint64_t entry) const { return (entry >> (f_ + 1)) & ((1U << kTagBits) - 1); }
  // The key's entry (code from ProbeFor) cut to fingerprint length L <= F.
  uint64_t EntryAt(uint64_t code, unsigned L) const {
    const unsigned drop = f_ - L;
    return ((code >> (drop + 1)) << 1 | 1) << drop;
  }
  unsigned LengthOf(uint64_t entry) const {
    return f_ - static_cast<unsigned>(__builtin_ctzll(entry));
  }
  static bool Matches(uint64_t entry, uint64_t code) {
    return entry != 0 && ((entry ^ code) >> (__builtin_ctzll(entry) + 1)) == 0;
  }

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
  // Entries of p's buckets that match it (of any length).
  unsigned CountMatches(const Probe& p) const;
  // An entry named apart from its slot: [1][tag][fp: L][1], the same at
  // any F and in either bucket (the leading 1 keeps a tag's leading zeros,
  // so the length tells L). With the key's first bucket it names a copy.
  uint64_t PayloadOf(uint64_t entry) const {
    return ((entry & (SecondBit() - 1)) | SecondBit()) >> __builtin_ctzll(entry);
  }
  // The L of a payload.
  static unsigned PayloadLength(uint64_t payload) {
    return 64 - static_cast<unsigned>(__builtin_clzll(payload)) - kTagBits - 2;
  }
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
  // Places entry e (a = 0) of a key whose first bucket is i1, as Insert
  // (no readers).
  bool Place(uint64_t i1, uint64_t e);
  void RemoveAt(uint64_t bucket, unsigned slot);
  // Writes the key's entry at length L in a free slot of its buckets, else
  // along the shortest eviction path a bounded breadth-first search finds,
  // inside seq's odd phase (null: no readers). False: no room, nothing
  // changed.
  bool Insert(const Probe& p, unsigned L, std::atomic<uint64_t>* seq = nullptr);
  // Insert's common case in one read of each bucket's heads: when no entry
  // matches p, writes its entry at length L as Insert does (kPlaced, or kNoRoom
  // with nothing changed); else writes nothing (kMatched: caller counts copies).
  enum class NewKey { kPlaced, kMatched, kNoRoom };
  NewKey InsertIfNew(const Probe& p, unsigned L, std::atomic<uint64_t>* seq);
  // Removes the longest entry that matches p. That entry may be another
  // key's, and it is then safe to remove: a key whose entry matches p at
  // length L has p's i1, tag and first L fp bits, so p's own entry, no
  // longer than L (it is the longest), matches that key too.
  // False: nothing matched, nothing changed.
  bool Erase(const Probe& p);

  // Growth into an empty `to`. Widen: same base and level, to->slots() >=
  // slots(), to->fp_bits() >= the longest entry's L; never fails.
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

  // Gives the memory back to the system; the addresses stay mapped and
  // read as empty slots, so a reader still holding this table finds
  // nothing and its seqlock check sends it to the new table.
  void Retire();
  // Both ends of both buckets (a bucket of up to 8 * 57 bits may
  // straddle two cache lines). Always inlined: GCC drops calls to a helper
  // whose only effect is a prefetch (tests/tools/prefetch_hints_test.sh).
  SSTFILTER_ALWAYS_INLINE void PrefetchBuckets(const Probe& p) const {
    PrefetchBucket(p.i1);
    PrefetchBucket(p.i2);
  }
  SSTFILTER_ALWAYS_INLINE void PrefetchBucket(uint64_t b) const {
    const uint64_t bits = bucket_bits_;
    __builtin_prefetch(&words_[(b * bits) >> 6]);
    __builtin_prefetch(&words_[(b * bits + bits - 1) >> 6]);
  }
  // Raw words for Save/Load; Recount after raw writes (false: a slot or
  // the padding past the last slot holds what no Insert writes).
  uint64_t num_words() const { return words_count_; }
  uint64_t Word(uint64_t i) const { return words_[i].load(std::memory_order_relaxed); }
  void SetWord(uint64_t i, uint64_t v) { words_[i].store(v, std::memory_order_relaxed); }
  bool Recount();

  // Slot k of a bucket, as stored (0: empty).
  uint64_t Slot(uint64_t bucket, unsigned k) const {
    const uint64_t pos = bucket * bucket_bits_;
    const uint64_t head = Bits(pos + k * kHeadBits, kHeadBits);
    return (head << (f_ + 1)) | Bits(pos + w_ * kHeadBits + k * (f_ + 1), f_ + 1);
  }

 private:
  // A bucket stores its w slots' heads (bit a and the tag) first, then
  // their tails (fp, marker, zeros: F + 1 bits each). A query compares
  // all the heads of a bucket at once (7 fit one 64-bit word) and reads a
  // tail only where a head is its own: an absent key reads one in about
  // 2^8 / (w * load) slots.
  static constexpr unsigned kHeadBits = kTagBits + 1;
  static constexpr unsigned kHeadsPerWord = 64 / kHeadBits;  // 7
  static_assert(kMaxSlots <= kHeadsPerWord, "a bucket's heads are read as one word");
  static constexpr uint64_t kHeadOnes = 0x0040201008040201ULL;  // 1 in each of 7 heads
  static constexpr uint64_t kHeadTops = kHeadOnes << (kHeadBits - 1);
  // A word with bits only at 9k (k < 7) times this (bits 54 - 8j, j < 7)
  // has bit 9k at 54 + k: bit 9k times bit 54 - 8j lands on 54 + k +
  // 8(k - j), a different place for every (k, j) (9k - 8j determines both),
  // so there are no carries, and only j = k lands in 54..60.
  static constexpr uint64_t kGather = 0x0040404040404040ULL;

  SSTFILTER_ALWAYS_INLINE uint64_t Bits(uint64_t pos, unsigned width) const {  // width <= 57
    return Window(pos) & ((uint64_t{1} << width) - 1);
  }
  // The 64 bits from bit `pos` on (bit pos in bit 0), branch-free.
  SSTFILTER_ALWAYS_INLINE uint64_t Window(uint64_t pos) const {
    const uint64_t w = pos >> 6;
    const unsigned off = pos & 63;
    const uint64_t lo = words_[w].load(std::memory_order_relaxed);
    const uint64_t hi = words_[w + 1].load(std::memory_order_relaxed);
    return (lo >> off) | ((hi << 1) << (63 - off));
  }
  // The zero heads of x (a bucket's window xor a query's heads), a bit
  // each. The quick test (x - ones) & ~x & tops is nonzero when some field
  // of x is zero (it may also flag a field above a zero one, by a borrow),
  // so most absent keys stop there; otherwise the exact test: a field is
  // zero when neither its top bit nor the carry out of its low 8 bits is
  // set.
  SSTFILTER_ALWAYS_INLINE uint32_t ZeroHeads(uint64_t x) const {
    if (((x - kHeadOnes) & ~x & heads_top_) == 0) return 0;
    const uint64_t low = kHeadTops - kHeadOnes;  // the low 8 bits of each head
    const uint64_t zero = ~(((x & low) + low) | x) & heads_top_;
    // The top bit of head k is bit 9k + 8: gathered into bit k.
    return static_cast<uint32_t>(((zero >> 8) * kGather) >> 54) & 0x7f;
  }
  // A bit per slot of the bucket at `pos` whose head is `head`.
  SSTFILTER_ALWAYS_INLINE uint32_t HeadsEqual(uint64_t pos, uint64_t head) const {
    return ZeroHeads(Window(pos) ^ (head * kHeadOnes));
  }
  SSTFILTER_ALWAYS_INLINE uint64_t Tail(uint64_t pos, unsigned k) const {
    return Bits(pos + w_ * kHeadBits + k * (f_ + 1), f_ + 1);
  }
  // Whether a tail (its head being the query's) matches the query's code.
  SSTFILTER_ALWAYS_INLINE bool TailMatches(uint64_t tail, uint64_t code) const {
    return (tail ^ (code & tail_mask_)) < ((tail & (0 - tail)) << 1);  // tail 0: never
  }
  // Slots of the bucket that match `code`, as a bit each; with kOne, the
  // first only.
  enum Count { kOne, kAll };
  template <Count kCount = kOne>
  SSTFILTER_ALWAYS_INLINE uint32_t BucketHas(uint64_t bucket, uint64_t code) const {
    const uint64_t pos = bucket * bucket_bits_;
    uint32_t found = 0;
    for (uint32_t m = HeadsEqual(pos, code >> (f_ + 1)); m != 0; m &= m - 1) {
      const unsigned k = static_cast<unsigned>(__builtin_ctz(m));
      if (TailMatches(Tail(pos, k), code)) {
        found |= 1U << k;
        if (kCount == kOne) return found;
      }
    }
    return found;
  }
  // Empty slots (zero head and tail), a bit each.
  SSTFILTER_ALWAYS_INLINE uint32_t FreeSlots(uint64_t bucket) const {
    const uint64_t pos = bucket * bucket_bits_;
    uint32_t free = 0;
    for (uint32_t m = HeadsEqual(pos, 0); m != 0; m &= m - 1) {
      const unsigned k = static_cast<unsigned>(__builtin_ctz(m));
      if (Tail(pos, k) == 0) free |= 1U << k;
    }
    return free;
  }
  // Defined in growing_table.cc, their only user, where they inline.
  void WriteBits(uint64_t pos, unsigned width, uint64_t v);
  void SetSlot(uint64_t bucket, unsigned k, uint64_t v);

  int FreeSlot(uint64_t bucket) const;
  // The bucket an entry stored in `bucket` would move to, and the entry as
  // stored there (its bit a flipped).
  uint64_t OtherBucket(uint64_t bucket, uint64_t entry) const {
    return (entry & SecondBit()) ? First(bucket, TagOf(entry)) : Second(bucket, TagOf(entry));
  }
  bool SearchPlace(uint64_t i1, uint64_t e, std::atomic<uint64_t>* seq);
  // InsertIfNew slot by slot, for every case InsertIfNew's own word
  // operations leave to it (growing_table.cc says which).
  NewKey InsertIfNewBySlot(const Probe& p, unsigned L, std::atomic<uint64_t>* seq);
  // Writes entry e (a = 0) of probe p in a free slot of its emptier bucket
  // (free1, free2: the buckets' free slots as bits, at least one set).
  void PlaceFree(const Probe& p, uint64_t e, uint32_t free1, uint32_t free2);
  bool PathIsSimple(int32_t node) const;
  void Count(uint64_t entry, int64_t d) {
    entries_ += static_cast<uint64_t>(d);
    by_length_[LengthOf(entry)] += static_cast<uint64_t>(d);
  }

  uint64_t base_;
  unsigned level_;
  uint64_t buckets_;
  unsigned w_;
  unsigned f_;
  unsigned W_;
  uint64_t bucket_bits_;  // w * W
  uint64_t table_bits_;   // B * w * W
  uint64_t words_count_;  // plus one padding word, so Window may read w + 1
  uint64_t tail_mask_;    // the low F + 1 bits
  uint64_t heads_top_;    // the top bit of each of the first min(w, 7) heads
  size_t map_bytes_;
  std::atomic<uint64_t>* words_;  // in anonymous zero pages
  uint64_t offset_[1U << kTagBits];       // d(tag), 1 <= d < B
  uint64_t offset_bits_[1U << kTagBits];  // d(tag) * bucket_bits_
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
