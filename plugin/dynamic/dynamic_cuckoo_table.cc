#include "dynamic/dynamic_cuckoo_table.h"

#include <algorithm>
#include <cstdint>
#include <new>

#include "dynamic/eviction_path.h"
#include "dynamic/table_memory.h"

namespace sstfilter {

namespace {

// The random walk's visited set (power of two, far above its 64 steps).
constexpr size_t kVisitedSlots = 256;

// The buckets one eviction search has seen: an open-addressing set in the
// table's scratch arrays (cells hold bucket + 1, 0 = free). It clears only
// the cells it set, when the search ends.
class VisitedBuckets {
 public:
  VisitedBuckets(std::vector<uint64_t>* cells, std::vector<uint32_t>* touched)
      : cells_(*cells), touched_(*touched) {
    touched_.clear();
  }
  ~VisitedBuckets() {
    for (uint32_t h : touched_) cells_[h] = 0;
  }
  VisitedBuckets(const VisitedBuckets&) = delete;
  VisitedBuckets& operator=(const VisitedBuckets&) = delete;

  // True if `b` was not seen before (and now is).
  bool Visit(uint64_t b) {
    size_t h = static_cast<size_t>(Mix64(b)) & (kVisitedSlots - 1);
    while (cells_[h] != 0) {
      if (cells_[h] == b + 1) return false;
      h = (h + 1) & (kVisitedSlots - 1);
    }
    cells_[h] = b + 1;
    touched_.push_back(static_cast<uint32_t>(h));
    return true;
  }

 private:
  std::vector<uint64_t>& cells_;
  std::vector<uint32_t>& touched_;
};
}  // namespace

DynamicCuckooTable::DynamicCuckooTable(uint64_t base_buckets, unsigned level,
                                       unsigned fp_bits, unsigned stable_bits,
                                       uint64_t zero_capacity)
    : base_(base_buckets),
      level_(level),
      buckets_(base_buckets << level),
      l_(fp_bits),
      s_(stable_bits),
      stable_mask_(stable_bits >= 32 ? ~0U : ((1U << stable_bits) - 1)),
      level_mask_((1ULL << level) - 1),
      words_count_((buckets_ * kSlots * fp_bits + 63) / 64),
      zero_cap_(16) {
  while (zero_cap_ < zero_capacity) zero_cap_ <<= 1;
  // One mapping for slots (+ a padding word) and zero set: anonymous pages
  // read as zeros, which is "empty" for both, and can be handed back by
  // Retire while late readers still hold the addresses.
  map_bytes_ = (words_count_ + 1 + zero_cap_) * sizeof(uint64_t);
  map_ = dynamic_cuckoo::MapZeroed(map_bytes_);
  // std::atomic<uint64_t> is a plain 8-byte word here (lock-free, no
  // padding): zero-filled pages are valid, zero-valued atomics.
  static_assert(sizeof(std::atomic<uint64_t>) == sizeof(uint64_t), "atomic layout");
  words_ = new (map_) std::atomic<uint64_t>[words_count_ + 1 + zero_cap_];
  zero_ = words_ + words_count_ + 1;
}

DynamicCuckooTable::~DynamicCuckooTable() { dynamic_cuckoo::Unmap(map_, map_bytes_); }

void DynamicCuckooTable::Retire() {
  dynamic_cuckoo::ReleasePages(map_, map_bytes_);
}

int DynamicCuckooTable::FreeSlot(uint64_t bucket) const {
  uint32_t s[kSlots];
  ReadBucket(bucket, s);
  for (unsigned k = 0; k < kSlots; ++k) {
    if (s[k] == 0) return static_cast<int>(k);
  }
  return -1;
}

bool DynamicCuckooTable::ZeroHas(uint64_t bucket) const {
  const uint64_t mask = zero_cap_ - 1;
  for (uint64_t h = Mix64(bucket) & mask, n = 0; n < zero_cap_; h = (h + 1) & mask, ++n) {
    const uint64_t v = zero_[h].load(std::memory_order_relaxed);
    if (v == 0) return false;
    if (v == bucket + 1) return true;
  }
  return false;
}

bool DynamicCuckooTable::ZeroAdd(uint64_t bucket) {
  // At most half the cells used (tombstones included), so probes stay short
  // and always end at an empty cell.
  if (2 * (zero_used_.load(std::memory_order_relaxed) + 1) > zero_cap_) return false;
  const uint64_t mask = zero_cap_ - 1;
  uint64_t h = Mix64(bucket) & mask;
  while (zero_[h].load(std::memory_order_relaxed) != 0) h = (h + 1) & mask;
  zero_[h].store(bucket + 1, std::memory_order_release);
  zero_used_.store(zero_used_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  AddZeros(1);
  AddEntries(1);
  return true;
}

bool DynamicCuckooTable::ZeroErase(uint64_t bucket) {
  const uint64_t mask = zero_cap_ - 1;
  for (uint64_t h = Mix64(bucket) & mask, n = 0; n < zero_cap_; h = (h + 1) & mask, ++n) {
    const uint64_t v = zero_[h].load(std::memory_order_relaxed);
    if (v == 0) return false;
    if (v == bucket + 1) {
      zero_[h].store(kTomb, std::memory_order_release);  // probes continue past it
      AddZeros(-1);
      AddEntries(-1);
      return true;
    }
  }
  return false;
}

unsigned DynamicCuckooTable::CountCopies(const Probe& p, PairSlots* read) const {
  unsigned n = 0;
  if (p.fp == 0) {
    const uint64_t mask = zero_cap_ - 1;
    const uint64_t buckets[2] = {p.i1, p.i2};
    for (int which = 0; which < (p.i1 == p.i2 ? 1 : 2); ++which) {
      const uint64_t b = buckets[which];
      for (uint64_t h = Mix64(b) & mask, k = 0; k < zero_cap_; h = (h + 1) & mask, ++k) {
        const uint64_t v = zero_[h].load(std::memory_order_relaxed);
        if (v == 0) break;
        n += v == b + 1;
      }
    }
    return n;
  }
  PairSlots local;
  PairSlots& s = read != nullptr ? *read : local;
  ReadBucket(p.i1, s.first);
  ReadBucket(p.i2, s.second);
  for (unsigned k = 0; k < kSlots; ++k) n += (s.first[k] == p.fp) + (s.second[k] == p.fp);
  // One bucket twice: its copies were counted twice.
  return p.i2 != p.i1 ? n : n / 2;
}

bool DynamicCuckooTable::Erase(const Probe& p) {
  if (p.fp == 0) return ZeroErase(p.i1) || ZeroErase(p.i2);
  for (uint64_t b : {p.i1, p.i2}) {
    uint32_t s[kSlots];
    ReadBucket(b, s);
    for (unsigned k = 0; k < kSlots; ++k) {
      if (s[k] == p.fp) {
        SetSlot(b, k, 0);
        AddEntries(-1);
        return true;
      }
    }
  }
  return false;
}

bool DynamicCuckooTable::WalkInsert(const Probe& p, std::atomic<uint64_t>* seq) {
  constexpr int kMaxSteps = 64;
  VisitedBuckets visited(&visited_, &touched_);
  // path[t] = (bucket, slot): the entry there moves to path[t + 1]'s slot,
  // the last one to (dest, dest_slot). No bucket twice, so the moves never
  // overwrite a slot another move still reads.
  uint64_t rng = Mix64(p.fp ^ (p.i1 << 20));
  uint64_t b = (rng & 1) ? p.i2 : p.i1;
  visited.Visit(p.i1);
  visited.Visit(p.i2);
  walk_.clear();
  for (int step = 0; step < kMaxSteps; ++step) {
    rng = Mix64(rng + 0x9e3779b97f4a7c15ULL);
    const unsigned k = static_cast<unsigned>(rng >> 62);
    uint32_t slots[kSlots];
    ReadBucket(b, slots);
    walk_.push_back({b, static_cast<uint8_t>(k)});
    const uint64_t next = Alt(b, slots[k]);
    if (!visited.Visit(next)) return false;
    const int free_k = FreeSlot(next);
    if (free_k >= 0) {
      const uint64_t s = seq->load(std::memory_order_relaxed);
      seq->store(s + 1, std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_release);
      uint64_t dest = next;
      unsigned dest_slot = static_cast<unsigned>(free_k);
      for (size_t t = walk_.size(); t-- > 0;) {  // back to front
        SetSlot(dest, dest_slot, Slot(walk_[t].bucket, walk_[t].slot));
        dest = walk_[t].bucket;
        dest_slot = walk_[t].slot;
      }
      SetSlot(dest, dest_slot, p.fp);
      seq->store(s + 2, std::memory_order_release);
      AddEntries(1);
      return true;
    }
    b = next;
  }
  return false;
}

bool DynamicCuckooTable::InsertEvicting(const Probe& p, std::atomic<uint64_t>* seq) {
  // Both full: find a path to a bucket with room first, move nothing yet.
  // The breadth-first search reads up to 8 buckets at once (their cache
  // misses overlap) and finds a shortest path; the random walk, one
  // bucket a step, only reaches deeper when the search's node bound stops it.
  if (SearchInsert(p, seq)) return true;
  if (visited_.size() != kVisitedSlots) visited_.assign(kVisitedSlots, 0);
  return WalkInsert(p, seq);
}

bool DynamicCuckooTable::PathIsSimple(int32_t node) const {
  return dynamic_cuckoo::PathIsSimple<kMaxDepth + 2>(nodes_, node);
}

bool DynamicCuckooTable::SearchInsert(const Probe& p, std::atomic<uint64_t>* seq) {
  // Level by level, a few parents at a time: the children of two parents
  // (up to 8 buckets) are prefetched together before any is read, so they
  // cost about one memory latency, not one each (a random walk pays one
  // per step), and a level is scanned in that order, so the first free
  // bucket with a simple path is the one a whole-level scan would find
  // first. Most searches end at level 1 or 2, so children are generated
  // level by level, two parents at a time, not all of a level before
  // scanning any; prefetching a bucket's children as soon as it is found
  // full would compete with the rest of its level's misses. Buckets are not deduplicated
  // across branches (a repeat only wastes a node); a path is used only if
  // its buckets are distinct, so no move overwrites a slot another move
  // still reads.
  constexpr size_t kParentsPerStep = 2;
  nodes_.clear();
  nodes_.push_back({p.i1, -1, 0});
  if (p.i2 != p.i1) nodes_.push_back({p.i2, -1, 0});
  size_t begin = 0;
  for (unsigned depth = 1; depth <= kMaxDepth && begin < nodes_.size(); ++depth) {
    const size_t end = nodes_.size();
    for (size_t h = begin; h < end && nodes_.size() + kSlots <= kMaxNodes;) {
      const size_t first_child = nodes_.size();
      for (const size_t stop = std::min(end, h + kParentsPerStep);
           h < stop && nodes_.size() + kSlots <= kMaxNodes; ++h) {
        const uint64_t b = nodes_[h].bucket;
        uint32_t slots[kSlots];
        ReadBucket(b, slots);
        for (unsigned k = 0; k < kSlots; ++k) {
          // A free slot here was passed over (its path repeats a bucket).
          if (slots[k] == 0) continue;
          const uint64_t alt = Alt(b, slots[k]);
          PrefetchBucket(alt);
          // Field by field: a Node built aside and copied in whole was a
          // 16-byte load of three narrower stores just made, which the CPU
          // cannot forward (half this search's time at 89-95% load).
          Node& child = nodes_.emplace_back();
          child.bucket = alt;
          child.parent = static_cast<int32_t>(h);
          child.slot = static_cast<uint8_t>(k);
        }
      }
      for (size_t c = first_child; c < nodes_.size(); ++c) {
        const int free_k = FreeSlot(nodes_[c].bucket);
        if (free_k >= 0 && PathIsSimple(static_cast<int32_t>(c))) {
          ApplyPath(static_cast<int32_t>(c), static_cast<unsigned>(free_k), p.fp, seq);
          return true;
        }
      }
    }
    begin = end;
  }
  return false;
}

void DynamicCuckooTable::ApplyPath(int32_t node, unsigned dest_slot, uint32_t fp,
                                   std::atomic<uint64_t>* seq) {
  // Back to front: each entry is written to its new slot before its old
  // slot is overwritten. A reader may still read the destination before and
  // the source after a move; the seqlock makes it retry.
  const uint64_t s = seq->load(std::memory_order_relaxed);
  seq->store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  while (nodes_[node].parent >= 0) {
    const Node& n = nodes_[node];
    SetSlot(n.bucket, dest_slot, Slot(nodes_[n.parent].bucket, n.slot));
    dest_slot = n.slot;
    node = n.parent;
  }
  SetSlot(nodes_[node].bucket, dest_slot, fp);
  seq->store(s + 2, std::memory_order_release);
  AddEntries(1);
}

bool DynamicCuckooTable::DoubleInto(DynamicCuckooTable* bigger) const {
  const uint32_t top = 1U << (l_ - 1);
  for (uint64_t i = 0; i < buckets_; ++i) {
    unsigned used[2] = {0, 0};
    uint32_t slots[kSlots];
    ReadBucket(i, slots);
    for (unsigned k = 0; k < kSlots; ++k) {
      const uint32_t fp = slots[k];
      if (fp == 0) continue;
      const unsigned b = (fp & top) != 0;
      const uint32_t rest = fp & (top - 1);
      const uint64_t to = 2 * i + b;
      if (rest == 0) {
        if (!bigger->ZeroAdd(to)) return false;
      } else {
        bigger->SetSlot(to, used[b]++, rest);  // at most 4 from bucket i
        bigger->AddEntries(1);
      }
    }
  }
  for (uint64_t h = 0; h < zero_cap_; ++h) {
    const uint64_t v = zero_[h].load(std::memory_order_relaxed);
    if (v != 0 && v != kTomb && !bigger->ZeroAdd(2 * (v - 1))) return false;
  }
  return true;
}

bool DynamicCuckooTable::Recount() {
  uint64_t slots = 0;
  for (uint64_t b = 0; b < buckets_; ++b) {
    for (unsigned k = 0; k < kSlots; ++k) slots += Slot(b, k) != 0;
  }
  const uint64_t used_bits = buckets_ * kSlots * l_;
  if ((used_bits & 63) != 0 && (Word(words_count_ - 1) >> (used_bits & 63)) != 0) return false;
  uint64_t zeros = 0, used = 0;
  for (uint64_t h = 0; h < zero_cap_; ++h) {
    const uint64_t v = ZeroCell(h);
    if (v == 0) continue;
    ++used;
    if (v == kTomb) continue;
    if (v > buckets_) return false;
    // Reachable by a probe from its home cell (no empty cell in between).
    const uint64_t mask = zero_cap_ - 1;
    for (uint64_t g = Mix64(v - 1) & mask; g != h; g = (g + 1) & mask) {
      if (ZeroCell(g) == 0) return false;
    }
    ++zeros;
  }
  if (2 * used > zero_cap_) return false;
  entries_.store(slots + zeros, std::memory_order_relaxed);
  zeros_.store(zeros, std::memory_order_relaxed);
  zero_used_.store(used, std::memory_order_relaxed);
  return true;
}

}  // namespace sstfilter
