// One member of a dynamic cuckoo filter: a cuckoo table that doubles
// without the keys. B = B0 * 2^k buckets (B0 any, not a power of two) of 4
// slots of exactly l bits (bit-packed, l <= 32); k counts doublings.
//
// Addressing, for a key hash x (all fractions of 2^64):
//   x * B  = i1 + r, 0 <= r < 1       i1 = FastRange64(x, B)
//   fp     = the first l bits of r     (the next l bits of x * B0 after i1)
//   alt(i) = (T(s) * 2^k + 2 (i mod 2^k) - i) mod B
//            s = the last min(8, l) bits of fp, T(s) = FastRange64(s * C, B0)
// A doubling turns x * B into x * 2B = 2 i1 + (2r), so a key's new bucket is
// 2 i1 + (first bit of fp) and its new fingerprint is fp without that bit:
// entries move without their keys. alt is an involution for any B (both
// buckets of a pair share i mod 2^k), and alt at 2B of 2i + b is
// 2 alt(i) + b: an entry moves to 2i + (first bit of fp) whichever of its two
// buckets it sits in, so a doubling never needs to know which one that is,
// and 4 slots of bucket i always fit in buckets 2i and 2i + 1. s stays put:
// the last bits of fp are the last bits of x * B0 the table keeps, whatever k.
//
// fp = 0 cannot be told from an empty slot, so entries with fp = 0 (one in
// 2^l) live in a side set of bucket indices, the zero set, probed only by
// queries whose fp is 0.
//
// FPR: each occupied slot of the two probed buckets matches with
// probability 2^-l, so 8 * load * 2^-l (plus the zero set's ~2^-l * 2 * its
// entries / B). One doubling halves the load and doubles 2^-l: the FPR at a
// given load is the same before and after, and l sets it.
//
// Thread safety: one writer, any number of readers. Words are atomics,
// loaded relaxed. A slot that straddles two words is written word by word:
// a reader can see it torn, which only ever affects the slot being written,
// whose old and new contents are both also present elsewhere or not yet
// promised to anyone. Eviction paths are applied back to front inside the
// owner's seqlock (`seq`): a reader that found nothing retries if it changed.

#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "format/coding.h"
#include "format/hash.h"

namespace sstfilter {

class DynamicCuckooTable {
 public:
  static constexpr unsigned kSlots = 4;
  static constexpr unsigned kMaxStableBits = 8;

  // Requires base_buckets >= 2, 1 <= fp_bits <= 32, stable_bits <= fp_bits.
  DynamicCuckooTable(uint64_t base_buckets, unsigned level, unsigned fp_bits,
                     unsigned stable_bits, uint64_t zero_capacity);
  ~DynamicCuckooTable();
  DynamicCuckooTable(const DynamicCuckooTable&) = delete;
  DynamicCuckooTable& operator=(const DynamicCuckooTable&) = delete;

  uint64_t base_buckets() const { return base_; }
  unsigned level() const { return level_; }
  uint64_t num_buckets() const { return buckets_; }
  unsigned fp_bits() const { return l_; }
  unsigned stable_bits() const { return s_; }
  uint64_t zero_capacity() const { return zero_cap_; }
  uint64_t num_words() const { return words_count_; }
  uint64_t entries() const { return entries_.load(std::memory_order_relaxed); }
  uint64_t zero_entries() const { return zeros_.load(std::memory_order_relaxed); }
  uint64_t capacity() const { return buckets_ * kSlots; }
  // Bytes of slots and zero set (the mapping rounds up to pages).
  size_t MemoryBytes() const { return (words_count_ + zero_cap_) * sizeof(uint64_t); }

  struct Probe {
    uint64_t i1, i2;
    uint32_t fp;
  };
  Probe ProbeFor(uint64_t hash) const {
    const Uint128 p = static_cast<Uint128>(hash) * buckets_;
    Probe q;
    q.i1 = static_cast<uint64_t>(p >> 64);
    q.fp = static_cast<uint32_t>(static_cast<uint64_t>(p) >> (64 - l_));
    q.i2 = Alt(q.i1, q.fp);
    return q;
  }
  uint64_t Alt(uint64_t i, uint32_t fp) const {
    const uint64_t t = FastRange64((fp & stable_mask_) * 0x9e3779b97f4a7c15ULL, base_);
    const uint64_t low = i & level_mask_;
    const uint64_t a = (t << level_) + 2 * low;  // < B + 2^(k+1) <= 2B
    uint64_t r = a >= i ? a - i : a + buckets_ - i;
    if (r >= buckets_) r -= buckets_;
    return r;
  }

  // Reader side (any thread).
  SSTFILTER_ALWAYS_INLINE bool Contains(const Probe& p) const {
    if (p.fp == 0) return ZeroHas(p.i1) || ZeroHas(p.i2);
    // Both cache misses in flight before the first bucket is compared.
    __builtin_prefetch(&words_[(p.i2 * kSlots * l_) >> 6]);
    return BucketHas(p.i1, p.fp) || BucketHas(p.i2, p.fp);
  }
  // Prefetch helpers are always inlined: GCC 12 judges a function whose
  // only effect is __builtin_prefetch pure and drops calls to it
  // (tests/tools/prefetch_hints_test.sh checks the callers' machine code).
  SSTFILTER_ALWAYS_INLINE void Prefetch(const Probe& p) const {
    __builtin_prefetch(&words_[(p.i1 * kSlots * l_) >> 6]);
    __builtin_prefetch(&words_[(p.i2 * kSlots * l_) >> 6]);
  }
  // Both ends of the bucket: one in ~8 straddles two cache lines.
  SSTFILTER_ALWAYS_INLINE void PrefetchBucket(uint64_t bucket) const {
    const uint64_t pos = bucket * kSlots * l_;
    __builtin_prefetch(&words_[pos >> 6]);
    __builtin_prefetch(&words_[(pos + kSlots * l_ - 1) >> 6]);
  }

  // Writer side.
  // The slots of a probe's two buckets, as read by CountCopies for Insert.
  struct PairSlots {
    uint32_t first[kSlots];
    uint32_t second[kSlots];
  };
  // Copies of p.fp in p's bucket pair (or, for fp 0, in the zero set).
  // With `read` and p.fp != 0, also the pair's slots as read, so that an
  // Insert of the same probe right after need not read them again.
  unsigned CountCopies(const Probe& p, PairSlots* read = nullptr) const;
  // Places p.fp: a free slot of its pair, else an eviction path found first
  // (a breadth-first search of up to kMaxDepth levels, prefetching the
  // children of two parents, up to 8 buckets, together; then a random walk
  // of up to 64 steps) and applied back to front inside seq's odd phase.
  // False: no room, nothing changed.
  // `read`: the pair's slots from CountCopies of p, nothing written since;
  // null to read them here.
  SSTFILTER_ALWAYS_INLINE bool Insert(const Probe& p, std::atomic<uint64_t>* seq,
                                      const PairSlots* read = nullptr) {
    return PlaceFree(p, read) || (p.fp != 0 && InsertEvicting(p, seq));
  }
  // Insert's first step alone: a free slot of the pair (or the zero set),
  // never moving another entry. False: nothing changed.
  SSTFILTER_ALWAYS_INLINE bool PlaceFree(const Probe& p, const PairSlots* read = nullptr) {
    if (p.fp == 0) return ZeroAdd(p.i1);
    // The first bucket, unless that takes its last free slot while the second
    // has more: fewer full buckets, so fewer later inserts need the eviction
    // search (counted: 23% fewer searches while a 2M-key guard's filter fills
    // to 89%, 3-6% fewer from 89% to 95%).
    PairSlots local;
    if (read == nullptr) {
      ReadBucket(p.i1, local.first);
      ReadBucket(p.i2, local.second);
      read = &local;
    }
    const uint32_t* s1 = read->first;
    const uint32_t* s2 = read->second;
    int k1 = -1, k2 = -1;
    unsigned free1 = 0, free2 = 0;
    for (unsigned k = 0; k < kSlots; ++k) {
      if (s1[k] == 0 && free1++ == 0) k1 = static_cast<int>(k);
      if (s2[k] == 0 && free2++ == 0) k2 = static_cast<int>(k);
    }
    const bool second = k2 >= 0 && p.i2 != p.i1 && (free1 == 0 || (free1 == 1 && free2 > 1));
    if (second || k1 >= 0) {
      SetSlot(second ? p.i2 : p.i1, static_cast<unsigned>(second ? k2 : k1), p.fp);
      AddEntries(1);
      return true;
    }
    return false;
  }
  // The pair's name, the same from either of its buckets: its lower bucket.
  // A doubling maps pair q of fingerprint fp to 2 q + (first bit of fp).
  static uint64_t PairId(const Probe& p) { return p.i1 < p.i2 ? p.i1 : p.i2; }
  bool Erase(const Probe& p);
  // Fills `bigger` (empty, level + 1, fp_bits - 1, same base and stable
  // bits) with every entry of this table. False if its zero set is too
  // small (nothing to undo: `bigger` is discarded).
  bool DoubleInto(DynamicCuckooTable* bigger) const;
  // Gives the memory back to the system; the addresses stay mapped and
  // read as zeros (empty), so a reader still holding this table finds
  // nothing and its seqlock check sends it to the new table.
  void Retire();

  // Raw access for Save/Load.
  uint64_t Word(uint64_t i) const { return words_[i].load(std::memory_order_relaxed); }
  void SetWord(uint64_t i, uint64_t v) { words_[i].store(v, std::memory_order_relaxed); }
  uint64_t ZeroCell(uint64_t i) const { return zero_[i].load(std::memory_order_relaxed); }
  void SetZeroCell(uint64_t i, uint64_t v) { zero_[i].store(v, std::memory_order_relaxed); }
  // Recounts after raw writes; false if the content is impossible.
  bool Recount();

 private:
  static constexpr uint64_t kTomb = ~0ULL;  // erased zero-set cell

  SSTFILTER_ALWAYS_INLINE uint64_t Bits(uint64_t pos, unsigned width) const {  // width <= 64
    const uint64_t w = pos >> 6;
    const unsigned off = pos & 63;
    uint64_t v = words_[w].load(std::memory_order_relaxed) >> off;
    if (off + width > 64) v |= words_[w + 1].load(std::memory_order_relaxed) << (64 - off);
    return width == 64 ? v : v & ((1ULL << width) - 1);
  }
  SSTFILTER_ALWAYS_INLINE bool BucketHas(uint64_t bucket, uint32_t fp) const {
    const uint64_t pos = bucket * kSlots * l_;
    const uint64_t mask = (1ULL << l_) - 1;
    if (l_ <= 16) {
      const uint64_t b = Bits(pos, 4 * l_);
      return (b & mask) == fp || ((b >> l_) & mask) == fp || ((b >> (2 * l_)) & mask) == fp ||
             ((b >> (3 * l_)) & mask) == fp;
    }
    const uint64_t a = Bits(pos, 2 * l_), b = Bits(pos + 2 * l_, 2 * l_);
    return (a & mask) == fp || (a >> l_) == fp || (b & mask) == fp || (b >> l_) == fp;
  }
  bool ZeroHas(uint64_t bucket) const;
  // The bucket's 4 slots with one or two extractions.
  SSTFILTER_ALWAYS_INLINE void ReadBucket(uint64_t bucket, uint32_t out[kSlots]) const {
    const uint64_t pos = bucket * kSlots * l_;
    const uint64_t mask = (1ULL << l_) - 1;
    if (l_ <= 16) {
      const uint64_t b = Bits(pos, 4 * l_);
      for (unsigned k = 0; k < kSlots; ++k) out[k] = static_cast<uint32_t>((b >> (k * l_)) & mask);
      return;
    }
    const uint64_t a = Bits(pos, 2 * l_), b = Bits(pos + 2 * l_, 2 * l_);
    out[0] = static_cast<uint32_t>(a & mask);
    out[1] = static_cast<uint32_t>(a >> l_);
    out[2] = static_cast<uint32_t>(b & mask);
    out[3] = static_cast<uint32_t>(b >> l_);
  }
  uint32_t Slot(uint64_t bucket, unsigned k) const {
    return static_cast<uint32_t>(Bits((bucket * kSlots + k) * l_, l_));
  }
  SSTFILTER_ALWAYS_INLINE void SetSlot(uint64_t bucket, unsigned k, uint32_t v) {
    const uint64_t pos = (bucket * kSlots + k) * l_;
    const uint64_t w = pos >> 6;
    const unsigned off = pos & 63;
    const uint64_t mask = (1ULL << l_) - 1;
    // Release: a reader that sees the new value also sees the seqlock's odd
    // phase that preceded it (eviction moves).
    uint64_t lo = words_[w].load(std::memory_order_relaxed);
    lo = (lo & ~(mask << off)) | (static_cast<uint64_t>(v) << off);
    words_[w].store(lo, std::memory_order_release);
    if (off + l_ > 64) {
      const unsigned done = 64 - off;
      uint64_t hi = words_[w + 1].load(std::memory_order_relaxed);
      hi = (hi & ~(mask >> done)) | (static_cast<uint64_t>(v) >> done);
      words_[w + 1].store(hi, std::memory_order_release);
    }
  }
  int FreeSlot(uint64_t bucket) const;
  // Insert's slow path: both buckets full.
  bool InsertEvicting(const Probe& p, std::atomic<uint64_t>* seq);
  // Path searches for Insert (nothing moved unless they succeed).
  bool SearchInsert(const Probe& p, std::atomic<uint64_t>* seq);
  bool WalkInsert(const Probe& p, std::atomic<uint64_t>* seq);
  // Whether the search path ending at nodes_[node] has distinct buckets.
  bool PathIsSimple(int32_t node) const;
  // Moves the entries along the search path to nodes_[node]'s free
  // dest_slot and puts fp at its root, inside seq's odd phase.
  void ApplyPath(int32_t node, unsigned dest_slot, uint32_t fp, std::atomic<uint64_t>* seq);
  bool ZeroAdd(uint64_t bucket);
  bool ZeroErase(uint64_t bucket);
  void AddEntries(int64_t d) {
    entries_.store(entries_.load(std::memory_order_relaxed) + static_cast<uint64_t>(d),
                   std::memory_order_relaxed);
  }
  void AddZeros(int64_t d) {
    zeros_.store(zeros_.load(std::memory_order_relaxed) + static_cast<uint64_t>(d),
                 std::memory_order_relaxed);
  }

  uint64_t base_;
  unsigned level_;
  uint64_t buckets_;
  unsigned l_;
  unsigned s_;
  uint32_t stable_mask_;
  uint64_t level_mask_;
  uint64_t words_count_;  // plus one padding word, so Bits may read w + 1
  uint64_t zero_cap_;     // power of two
  size_t map_bytes_;
  void* map_ = nullptr;
  std::atomic<uint64_t>* words_;
  std::atomic<uint64_t>* zero_;  // open addressing: bucket + 1, 0 empty, kTomb
  // Counts: written by the writer only, read by any thread (ExpectedFpr).
  std::atomic<uint64_t> entries_{0};  // occupied slots plus zero-set entries
  std::atomic<uint64_t> zeros_{0};
  std::atomic<uint64_t> zero_used_{0};  // cells ever used (entries + tombs)
  // Breadth-first search bounds: 2 roots, 4 children per bucket, so level 6
  // ends at 10922 nodes and is cut at kMaxNodes. Only inserts past ~95% load
  // need that depth; the filter stops filling a table at 95%, below where
  // these bounds first fail (tests/dynamic/dynamic_cuckoo_table_test.cc).
  static constexpr size_t kMaxNodes = 8192;
  static constexpr unsigned kMaxDepth = 7;
  // Breadth-first search scratch (writer only).
  struct Node {
    uint64_t bucket;
    int32_t parent;
    uint8_t slot;
  };
  std::vector<Node> nodes_;
  struct Step {
    uint64_t bucket;
    uint8_t slot;
  };
  std::vector<Step> walk_;
  std::vector<uint64_t> visited_;
  std::vector<uint32_t> touched_;
};

}  // namespace sstfilter
