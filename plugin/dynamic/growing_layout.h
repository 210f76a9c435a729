// The entries and the bit-packed buckets of the growing table
// (growing_table.h), the table of the dynamic cuckoo filter's format
// version 5, the default: how a key's entry is coded, which buckets it may
// sit in, and how a bucket's slots are read and written. Which slot an
// entry takes, and growth, are GrowingTable's.
//
// B = B0 * 2^k buckets (B0 >= 2, any integer) of `slots` slots (kMinSlots
// to kMaxSlots) of exactly W bits, bit-packed; k counts splits. An entry is
//
//   [a: 1 bit][tag: 8 bits][fp: L bits][1][0 ... 0]     (W = F + 10, L <= F)
//
// tag = the top 8 bits of (hash ^ (hash >> 29)) * 0xbf58476d1ce4e5b9, the
// same at every size; fp = the first L bits of the fraction r in
// hash * B = i1 + r; a = 0 when the entry sits in its key's first bucket
// i1, 1 in its second, i2 = (i1 + d(tag)) mod B, 1 <= d < B. The marker 1
// tells the length, so entries of several lengths share a table, and no
// entry is 0 (an empty slot).
//
// A query reads i1 for entries with a = 0 and i2 for entries with a = 1:
// its code is its entry at length F (a = 0, and a = 1 for i2), and an entry
// e matches code q when ((e ^ q) >> (ctz(e) + 1)) == 0. So each entry is
// compared by the queries of one bucket only, and an entry of length L
// matches an absent key with probability 2^-(8 + L) / B: FPR ~ M / B, M the
// sum of 2^-(8 + L) over entries. The bit a costs a slot bit and halves M's
// weight: it is worth one fp bit.
//
// A bucket stores its slots' heads (bit a and the tag) first, then their
// tails (fp, marker, zeros: F + 1 bits each). A query compares all the
// heads of a bucket at once (7 fit one 64-bit word) and reads a tail only
// where a head is its own: an absent key reads one in about
// 2^8 / (slots * load) slots.
//
// Thread safety: words are atomics, loaded relaxed. A slot is written as
// two fields (SetSlot says in which order). Who may write, and when
// readers must retry, is the owner's to say (growing_table.h).

#pragma once

#include <atomic>
#include <cstdint>

#include "format/bits.h"
#include "format/coding.h"
#include "format/hash.h"

namespace sstfilter {
namespace dynamic_cuckoo {

class GrowingLayout {
 public:
  static constexpr unsigned kTagBits = 8;
  static constexpr unsigned kMinSlots = 4;
  static constexpr unsigned kMaxSlots = 7;  // a bucket's heads fit one word
  // W = F + 10 <= 57 bits (Bits reads at most 57).
  static constexpr unsigned kMaxFpBits = 47;

  // Requires base_buckets >= 2, kMinSlots <= slots <= kMaxSlots,
  // 1 <= fp_bits <= kMaxFpBits. Every slot is empty. Throws std::bad_alloc
  // when memory is short.
  GrowingLayout(uint64_t base_buckets, unsigned level, unsigned slots, unsigned fp_bits);
  ~GrowingLayout();
  GrowingLayout(const GrowingLayout&) = delete;
  GrowingLayout& operator=(const GrowingLayout&) = delete;

  uint64_t base_buckets() const { return base_; }
  unsigned level() const { return level_; }
  uint64_t num_buckets() const { return buckets_; }
  unsigned slots() const { return slots_; }
  unsigned fp_bits() const { return fp_bits_; }  // F: the longest fp an entry can hold
  unsigned slot_bits() const { return slot_bits_; }
  uint64_t capacity() const { return buckets_ * slots_; }
  size_t MemoryBytes() const { return words_count_ * sizeof(uint64_t); }

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
    const uint64_t fp = (hash * buckets_) >> (64 - fp_bits_);  // fp_bits_ >= 1
    return (((TagFor(hash) << fp_bits_) | fp) << 1) | 1;
  }
  // Mixed from every bit of the hash (the fold brings the top bits, which
  // i1 and fp take, down to where the multiply spreads them), so that it
  // is independent of i1 and fp: with a multiply alone the measured FPR
  // stood above the model's. It is on a lookup's critical path (it picks
  // i2).
  static uint64_t TagFor(uint64_t hash) {
    return ((hash ^ (hash >> 29)) * 0xbf58476d1ce4e5b9ULL) >> (64 - kTagBits);
  }
  uint64_t Second(uint64_t i1, uint64_t tag) const {
    const uint64_t i = i1 + offset_[tag];
    return i >= buckets_ ? i - buckets_ : i;
  }
  uint64_t First(uint64_t i2, uint64_t tag) const {
    const uint64_t d = offset_[tag];
    return i2 >= d ? i2 - d : i2 + buckets_ - d;
  }
  uint64_t SecondBit() const { return uint64_t{1} << (fp_bits_ + kTagBits + 1); }
  uint64_t TagOf(uint64_t entry) const {
    return (entry >> (fp_bits_ + 1)) & ((1U << kTagBits) - 1);
  }
  // The key's entry (code from ProbeFor) cut to fingerprint length L <= F.
  uint64_t EntryAt(uint64_t code, unsigned L) const {
    const unsigned drop = fp_bits_ - L;
    return ((code >> (drop + 1)) << 1 | 1) << drop;
  }
  unsigned LengthOf(uint64_t entry) const {
    return fp_bits_ - static_cast<unsigned>(__builtin_ctzll(entry));
  }
  static bool Matches(uint64_t entry, uint64_t code) {
    return entry != 0 && ((entry ^ code) >> (__builtin_ctzll(entry) + 1)) == 0;
  }
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

  // Slot k of a bucket, as stored (0: empty).
  uint64_t Slot(uint64_t bucket, unsigned k) const {
    const uint64_t pos = bucket * bucket_bits_;
    const uint64_t head = Bits(pos + k * kHeadBits, kHeadBits);
    return (head << (fp_bits_ + 1)) |
           Bits(pos + slots_ * kHeadBits + k * (fp_bits_ + 1), fp_bits_ + 1);
  }
  // Raw words for Save/Load (the owner checks what it writes this way).
  uint64_t num_words() const { return words_count_; }
  uint64_t Word(uint64_t i) const { return words_[i].load(std::memory_order_relaxed); }
  void SetWord(uint64_t i, uint64_t v) { words_[i].store(v, std::memory_order_relaxed); }

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

  // Gives the memory back to the system; the addresses stay mapped and
  // read as empty slots, so a reader still holding this table finds
  // nothing and its seqlock check sends it to the new table.
  void Retire();

 protected:
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
    return Bits(pos + slots_ * kHeadBits + k * (fp_bits_ + 1), fp_bits_ + 1);
  }
  // Whether a tail (its head being the query's) matches the query's code.
  SSTFILTER_ALWAYS_INLINE bool TailMatches(uint64_t tail, uint64_t code) const {
    return (tail ^ (code & tail_mask_)) < ((tail & (0 - tail)) << 1);  // tail 0: never
  }
  // Slots of the bucket that match `code`, as a bit each; with kOne, the
  // first only.
  enum MatchCount { kOne, kAll };
  template <MatchCount kCount = kOne>
  SSTFILTER_ALWAYS_INLINE uint32_t BucketHas(uint64_t bucket, uint64_t code) const {
    const uint64_t pos = bucket * bucket_bits_;
    uint32_t found = 0;
    for (uint32_t m = HeadsEqual(pos, code >> (fp_bits_ + 1)); m != 0; m &= m - 1) {
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
  // The first empty slot of the bucket; -1: none.
  int FreeSlot(uint64_t bucket) const {
    const uint32_t free = FreeSlots(bucket);
    return free != 0 ? __builtin_ctz(free) : -1;
  }
  // The bucket an entry stored in `bucket` would move to, and the entry as
  // stored there (its bit a flipped).
  uint64_t OtherBucket(uint64_t bucket, uint64_t entry) const {
    return (entry & SecondBit()) ? First(bucket, TagOf(entry)) : Second(bucket, TagOf(entry));
  }

  SSTFILTER_ALWAYS_INLINE void WriteBits(uint64_t pos, unsigned width, uint64_t v) {
    const uint64_t w = pos >> 6;
    const unsigned off = pos & 63;
    const uint64_t mask = (uint64_t{1} << width) - 1;
    uint64_t lo = words_[w].load(std::memory_order_relaxed);
    lo = (lo & ~(mask << off)) | (v << off);
    words_[w].store(lo, std::memory_order_release);
    if (off + width > 64) {
      const unsigned done = 64 - off;
      uint64_t hi = words_[w + 1].load(std::memory_order_relaxed);
      hi = (hi & ~(mask >> done)) | (v >> done);
      words_[w + 1].store(hi, std::memory_order_release);
    }
  }
  // Writes entry v (0: empties the slot).
  SSTFILTER_ALWAYS_INLINE void SetSlot(uint64_t bucket, unsigned k, uint64_t v) {
    const uint64_t pos = bucket * bucket_bits_;
    const uint64_t head_pos = pos + k * kHeadBits;
    const uint64_t tail_pos = pos + slots_ * kHeadBits + k * (fp_bits_ + 1);
    // A new entry's tail before its head, an erased entry's head first: a
    // reader between the two writes sees at most a head with no tail (which
    // matches nothing) or a tail under a zero head (which matches only keys
    // of head 0, a false positive at worst).
    if (v != 0) {
      WriteBits(tail_pos, fp_bits_ + 1, v & tail_mask_);
      WriteBits(head_pos, kHeadBits, v >> (fp_bits_ + 1));
    } else {
      WriteBits(head_pos, kHeadBits, 0);
      WriteBits(tail_pos, fp_bits_ + 1, 0);
    }
  }

  uint64_t base_;
  unsigned level_;
  uint64_t buckets_;
  unsigned slots_;      // per bucket
  unsigned fp_bits_;    // F
  unsigned slot_bits_;  // W = F + kTagBits + 2
  uint64_t bucket_bits_;  // slots * W
  uint64_t table_bits_;   // B * slots * W
  uint64_t words_count_;  // plus one padding word, so Window may read w + 1
  uint64_t tail_mask_;    // the low F + 1 bits
  uint64_t heads_top_;    // the top bit of each of the first min(slots, 7) heads
  size_t map_bytes_;
  std::atomic<uint64_t>* words_;  // in anonymous zero pages
  uint64_t offset_[1U << kTagBits];       // d(tag), 1 <= d < B
  uint64_t offset_bits_[1U << kTagBits];  // d(tag) * bucket_bits_
};

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
