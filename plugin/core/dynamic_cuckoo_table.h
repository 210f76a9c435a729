// One cuckoo table of a dynamic cuckoo filter: B buckets (any B, not only
// powers of two) of 4 slots, f-bit fingerprints (0 = empty) stored in slots
// of W = 8, 16 or 32 bits, so that a slot never straddles a 64-bit word and
// every slot read or write is one atomic word access.
//
// Addressing (the same scheme as the static filter, cuckoo_filter.h):
//   i1 = FastRange64(hash, B), fp = 1 + FastRange32(low 32 bits, 2^f - 1)
//   alt(i, fp) = (T(fp) - i) mod B, T(fp) = FastRange64(fp * 0x9e3779b97f4a7c15, B)
// alt is an involution for every B, so an entry moves between its two
// buckets knowing only where it is and its fingerprint, and two entries with
// the same fingerprint sharing one bucket share both: equal fingerprints in
// a bucket pair are interchangeable (the basis of safe deletion).
//
// Thread safety: one writer, any number of readers. Words are atomics;
// readers load them relaxed. An eviction moves entries and so can hide an
// entry from a reader that reads its two buckets on either side of a move:
// the owner (DynamicCuckooFilter) brackets every eviction with its seqlock
// (`seq` passed to Insert) and readers that found nothing retry when it
// changed. Insert into a free slot and Erase need no bracket: they change
// only the key being written.

#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hash.h"

namespace sstfilter {

class DynamicCuckooTable {
 public:
  static constexpr unsigned kSlots = 4;

  // Requires 1 <= fp_bits <= 32, num_buckets >= 1.
  DynamicCuckooTable(uint64_t num_buckets, unsigned fp_bits);
  DynamicCuckooTable(const DynamicCuckooTable&) = delete;
  DynamicCuckooTable& operator=(const DynamicCuckooTable&) = delete;

  static unsigned SlotBitsFor(unsigned fp_bits) {
    return fp_bits <= 8 ? 8 : fp_bits <= 16 ? 16 : 32;
  }

  uint64_t num_buckets() const { return buckets_; }
  unsigned fp_bits() const { return fp_bits_; }
  unsigned slot_bits() const { return slot_bits_; }
  uint64_t num_words() const { return words_count_; }
  uint64_t entries() const { return entries_.load(std::memory_order_relaxed); }  // occupied slots
  uint64_t capacity() const { return buckets_ * kSlots; }
  size_t MemoryBytes() const { return words_count_ * sizeof(uint64_t); }

  // The key's two buckets and fingerprint.
  struct Probe {
    uint64_t i1, i2;
    uint32_t fp;
  };
  Probe ProbeFor(uint64_t hash) const {
    Probe p;
    p.i1 = FastRange64(hash, buckets_);
    p.fp = 1 + FastRange32(static_cast<uint32_t>(hash), fp_max_);
    p.i2 = Alt(p.i1, p.fp);
    return p;
  }
  uint64_t Alt(uint64_t i, uint32_t fp) const {
    // Fibonacci hashing: one multiply, high bits well spread.
    const uint64_t t = FastRange64(fp * 0x9e3779b97f4a7c15ULL, buckets_);
    return t >= i ? t - i : t + buckets_ - i;
  }

  // Reader side (any thread).
  bool Contains(const Probe& p) const {
    return BucketHas(p.i1, p.fp) || BucketHas(p.i2, p.fp);
  }
  void Prefetch(const Probe& p) const {
    __builtin_prefetch(WordPtr(p.i1));
    __builtin_prefetch(WordPtr(p.i2));
  }

  // Writer side (the one writer thread).
  // Copies of p.fp in the pair (a bucket counted once if i1 == i2).
  unsigned CountCopies(const Probe& p) const;
  // Places p.fp, evicting along a shortest path found first (breadth-first,
  // bounded); moves are written back to front inside seq's odd phase, so
  // every entry is in one of its buckets at every instant. False: no room,
  // nothing changed.
  bool Insert(const Probe& p, std::atomic<uint64_t>* seq);
  // Removes one copy of p.fp from the pair; false if there is none.
  bool Erase(const Probe& p);

  // Raw slot access for Save/Load and validation (writer or quiescent).
  uint32_t Slot(uint64_t bucket, unsigned k) const;
  void SetSlot(uint64_t bucket, unsigned k, uint32_t v);
  uint64_t Word(uint64_t i) const { return words_[i].load(std::memory_order_relaxed); }
  void SetWord(uint64_t i, uint64_t v) { words_[i].store(v, std::memory_order_relaxed); }
  // Recounts entries after SetWord (Load). False if any slot holds a value
  // that is not a valid fingerprint (> 2^f - 1) or unused slot bits are set.
  bool Recount();

 private:
  const std::atomic<uint64_t>* WordPtr(uint64_t bucket) const {
    return &words_[(bucket * kSlots * slot_bits_) >> 6];
  }
  // Whether any of the bucket's 4 slots equals fp: all lanes compared at
  // once with the classic "lane is zero" bit trick on word ^ broadcast(fp).
  bool BucketHas(uint64_t bucket, uint32_t fp) const {
    const uint64_t first = bucket * kSlots * slot_bits_;
    const uint64_t w0 = words_[first >> 6].load(std::memory_order_relaxed);
    switch (slot_bits_) {
      case 8: {
        const uint64_t x = ((w0 >> (first & 63)) & 0xffffffffULL) ^ (fp * 0x01010101ULL);
        return ((x - 0x01010101ULL) & ~x & 0x80808080ULL) != 0;
      }
      case 16: {
        const uint64_t x = w0 ^ (fp * 0x0001000100010001ULL);
        return ((x - 0x0001000100010001ULL) & ~x & 0x8000800080008000ULL) != 0;
      }
      default: {
        const uint64_t w1 = words_[(first >> 6) + 1].load(std::memory_order_relaxed);
        const uint64_t b = fp * 0x0000000100000001ULL;
        const uint64_t x = w0 ^ b, y = w1 ^ b;
        return (((x - 0x0000000100000001ULL) & ~x) | ((y - 0x0000000100000001ULL) & ~y)) &
               0x8000000080000000ULL;
      }
    }
  }
  int FreeSlot(uint64_t bucket) const;

  uint64_t buckets_;
  unsigned fp_bits_;
  unsigned slot_bits_;
  uint32_t fp_max_;  // 2^f - 1
  uint64_t words_count_;
  // Written by the writer only; atomic so that ExpectedFpr/MemoryBytes may
  // read it from any thread.
  std::atomic<uint64_t> entries_{0};
  void AddEntries(int64_t d) {
    entries_.store(entries_.load(std::memory_order_relaxed) + static_cast<uint64_t>(d),
                   std::memory_order_relaxed);
  }
  std::unique_ptr<std::atomic<uint64_t>[]> words_;
  // Breadth-first search scratch, reused (writer only).
  struct Node {
    uint64_t bucket;
    int32_t parent;
    uint8_t slot;  // slot in the parent's bucket whose entry leads here
  };
  std::vector<Node> nodes_;
  std::vector<uint64_t> visited_;  // open addressing, bucket + 1 (0 = empty)
  std::vector<uint32_t> touched_;  // cells of visited_ set by this search
};

}  // namespace sstfilter
