// GrowingTable's inserts: a free slot of the key's emptier bucket, else
// the shortest eviction path a bounded breadth-first search finds.

#include <atomic>

#include "dynamic/growing_table.h"

namespace sstfilter {
namespace dynamic_cuckoo {

bool GrowingTable::Insert(const Probe& p, unsigned L, std::atomic<uint64_t>* seq) {
  const uint64_t e = EntryAt(p.code, L);
  const uint32_t free1 = FreeSlots(p.i1), free2 = FreeSlots(p.i2);
  if ((free1 | free2) == 0) return SearchPlace(p.i1, e, seq);
  PlaceFree(p, e, free1, free2);
  return true;
}

void GrowingTable::PlaceFree(const Probe& p, uint64_t e, uint32_t free1, uint32_t free2) {
  // The emptier bucket first: fewer full buckets, fewer eviction searches.
  if (PopCount8(free2) > PopCount8(free1)) {
    SetSlot(p.i2, static_cast<unsigned>(__builtin_ctz(free2)), e | SecondBit());
  } else {
    SetSlot(p.i1, static_cast<unsigned>(__builtin_ctz(free1)), e);
  }
  Count(e, 1);
}

GrowingTable::NewKey GrowingTable::InsertIfNew(const Probe& p, unsigned L,
                                               std::atomic<uint64_t>* seq) {
  // Out of cache, a single insert waits for its buckets; what it runs after
  // they arrive is what its time adds to that wait, so the common case is
  // kept to a few word operations per bucket and one tail read, with no
  // loop. It answers exactly as InsertIfNewBySlot, which takes every other
  // case from the start.
  const uint64_t pos1 = p.i1 * bucket_bits_, pos2 = p.i2 * bucket_bits_;
  const uint64_t w1 = Window(pos1), w2 = Window(pos2);
  const uint64_t heads1 = (p.code >> (fp_bits_ + 1)) * kHeadOnes;
  const uint64_t x1 = w1 ^ heads1, x2 = w2 ^ (heads1 + (kHeadOnes << kTagBits));
  // ZeroHeads' quick test on both: no head equal to the query's, so no match.
  if (((((x1 - kHeadOnes) & ~x1) | ((x2 - kHeadOnes) & ~x2)) & heads_top_) != 0) {
    return InsertIfNewBySlot(p, L, seq);
  }
  // The zero heads, exactly (ZeroHeads' second test), a flag at bit 9k
  // each, and their number: the multiply by kHeadOnes adds flag k and one
  // of its bits at 9k + 9(6 - k) = 54, so bits 54-62 hold the count (at
  // most 7: no carry) and bit 63 another sum's low bit.
  const uint64_t low = kHeadTops - kHeadOnes;
  const uint64_t zero1 = (~(((w1 & low) + low) | w1) & heads_top_) >> (kHeadBits - 1);
  const uint64_t zero2 = (~(((w2 & low) + low) | w2) & heads_top_) >> (kHeadBits - 1);
  const auto count = [](uint64_t flags) { return ((flags * kHeadOnes) >> 54) & 0xf; };
  const bool second = count(zero2) > count(zero1);
  const uint64_t zero = second ? zero2 : zero1;
  if (zero == 0) return InsertIfNewBySlot(p, L, seq);  // both full: an eviction path
  const unsigned k = static_cast<unsigned>(__builtin_ctzll(((zero * kGather) >> 54) & 0x7f));
  if (Tail(second ? pos2 : pos1, k) != 0) return InsertIfNewBySlot(p, L, seq);  // tag 0
  const uint64_t e = EntryAt(p.code, L);
  SetSlot(second ? p.i2 : p.i1, k, second ? e | SecondBit() : e);
  Count(e, 1);
  return NewKey::kPlaced;
}

GrowingTable::NewKey GrowingTable::InsertIfNewBySlot(const Probe& p, unsigned L,
                                                     std::atomic<uint64_t>* seq) {
  uint64_t pos[2];
  uint32_t zero[2];
  for (int which = 0; which < 2; ++which) {
    const uint64_t code = which == 0 ? p.code : p.code | SecondBit();
    pos[which] = (which == 0 ? p.i1 : p.i2) * bucket_bits_;
    const uint64_t window = Window(pos[which]), head = code >> (fp_bits_ + 1);
    for (uint32_t m = ZeroHeads(window ^ (head * kHeadOnes)); m != 0; m &= m - 1) {
      if (TailMatches(Tail(pos[which], static_cast<unsigned>(__builtin_ctz(m))), code)) {
        return NewKey::kMatched;
      }
    }
    zero[which] = ZeroHeads(window);
  }
  // A free slot has a zero head and a zero tail; a zero head alone is a
  // free slot but for an entry in its first bucket with tag 0 (1 in 256).
  // So the bucket with more zero heads (the emptier, almost always) is
  // tried first, and only the tails of its zero heads are read, until a
  // free one.
  const uint64_t e = EntryAt(p.code, L);
  const int first = PopCount8(zero[1]) > PopCount8(zero[0]) ? 1 : 0;
  for (int which : {first, 1 - first}) {
    for (uint32_t m = zero[which]; m != 0; m &= m - 1) {
      const unsigned k = static_cast<unsigned>(__builtin_ctz(m));
      if (Tail(pos[which], k) != 0) continue;
      SetSlot(which == 0 ? p.i1 : p.i2, k, which == 0 ? e : e | SecondBit());
      Count(e, 1);
      return NewKey::kPlaced;
    }
  }
  return SearchPlace(p.i1, e, seq) ? NewKey::kPlaced : NewKey::kNoRoom;
}

bool GrowingTable::Place(uint64_t i1, uint64_t e) {
  int k = FreeSlot(i1);
  if (k >= 0) {
    SetSlot(i1, static_cast<unsigned>(k), e);
    Count(e, 1);
    return true;
  }
  const uint64_t i2 = Second(i1, TagOf(e));
  k = FreeSlot(i2);
  if (k >= 0) {
    SetSlot(i2, static_cast<unsigned>(k), e | SecondBit());
    Count(e, 1);
    return true;
  }
  return SearchPlace(i1, e, nullptr);
}

bool GrowingTable::PathIsSimple(int32_t node) const {
  // A path holds a root and at most a bucket per level; at that size a
  // quadratic scan is cheaper than a set.
  uint64_t path[kMaxDepth + 2];
  size_t n = 0;
  for (int32_t i = node; i >= 0; i = nodes_[i].parent) {
    const uint64_t b = nodes_[i].bucket;
    for (size_t j = 0; j < n; ++j) {
      if (path[j] == b) return false;
    }
    path[n++] = b;
  }
  return true;
}

bool GrowingTable::SearchPlace(uint64_t i1, uint64_t e, std::atomic<uint64_t>* seq) {
  // Breadth-first over "the entry in this slot moves to its other bucket";
  // the path is then applied back to front, each entry written to its new
  // slot before its old slot is overwritten. Roots: i1 (node 0), i2.
  nodes_.clear();
  nodes_.push_back({i1, -1, 0});
  nodes_.push_back({Second(i1, TagOf(e)), -1, 0});
  size_t begin = 0;
  for (unsigned depth = 1; depth <= kMaxDepth && begin < nodes_.size(); ++depth) {
    const size_t end = nodes_.size();
    // The whole level's children first, each prefetched, so that their
    // misses overlap (out of cache, the search's cost); then they are
    // checked in the same order as expanding and checking node by node.
    for (size_t h = begin; h < end && nodes_.size() + slots_ <= kMaxNodes; ++h) {
      const uint64_t b = nodes_[h].bucket;
      for (unsigned k = 0; k < slots_; ++k) {
        const uint64_t x = Slot(b, k);
        if (x == 0) continue;
        Node& child = nodes_.emplace_back();
        child.bucket = OtherBucket(b, x);
        child.parent = static_cast<int32_t>(h);
        child.slot = static_cast<uint8_t>(k);
        PrefetchBucket(child.bucket);
      }
    }
    for (size_t c = end; c < nodes_.size(); ++c) {
      const int free_k = FreeSlot(nodes_[c].bucket);
      if (free_k < 0 || !PathIsSimple(static_cast<int32_t>(c))) continue;
      int32_t node = static_cast<int32_t>(c);
      unsigned dest_slot = static_cast<unsigned>(free_k);
      const uint64_t s = seq != nullptr ? seq->load(std::memory_order_relaxed) : 0;
      if (seq != nullptr) {
        seq->store(s + 1, std::memory_order_relaxed);
        std::atomic_thread_fence(std::memory_order_release);
      }
      while (nodes_[node].parent >= 0) {
        const Node& n = nodes_[node];
        SetSlot(n.bucket, dest_slot, Slot(nodes_[n.parent].bucket, n.slot) ^ SecondBit());
        dest_slot = n.slot;
        node = n.parent;
      }
      SetSlot(nodes_[node].bucket, dest_slot, node == 0 ? e : e | SecondBit());
      if (seq != nullptr) seq->store(s + 2, std::memory_order_release);
      Count(e, 1);
      return true;
    }
    begin = end;
  }
  return false;
}

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
