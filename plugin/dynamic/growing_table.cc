#include "dynamic/growing_table.h"

#include <algorithm>
#include <cmath>
#include <new>

#include "dynamic/eviction_path.h"
#include "dynamic/table_memory.h"

namespace sstfilter {
namespace dynamic_cuckoo {

SSTFILTER_ALWAYS_INLINE void GrowingTable::WriteBits(uint64_t pos, unsigned width, uint64_t v) {
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

SSTFILTER_ALWAYS_INLINE void GrowingTable::SetSlot(uint64_t bucket, unsigned k, uint64_t v) {
  const uint64_t pos = bucket * bucket_bits_;
  const uint64_t head_pos = pos + k * kHeadBits;
  const uint64_t tail_pos = pos + w_ * kHeadBits + k * (f_ + 1);
  // A new entry's tail before its head, an erased entry's head first: a
  // reader between the two writes sees at most a head with no tail (which
  // matches nothing) or a tail under a zero head (which matches only keys
  // of head 0, a false positive at worst).
  if (v != 0) {
    WriteBits(tail_pos, f_ + 1, v & tail_mask_);
    WriteBits(head_pos, kHeadBits, v >> (f_ + 1));
  } else {
    WriteBits(head_pos, kHeadBits, 0);
    WriteBits(tail_pos, f_ + 1, 0);
  }
}

GrowingTable::GrowingTable(uint64_t base_buckets, unsigned level, unsigned slots,
                           unsigned fp_bits)
    : base_(base_buckets),
      level_(level),
      buckets_(base_buckets << level),
      w_(slots),
      f_(fp_bits),
      W_(fp_bits + kTagBits + 2),
      bucket_bits_(uint64_t{slots} * W_),
      table_bits_(buckets_ * bucket_bits_),
      words_count_((buckets_ * slots * W_ + 63) / 64),
      tail_mask_((uint64_t{1} << (fp_bits + 1)) - 1),
      heads_top_(0),
      map_bytes_((words_count_ + 1) * sizeof(uint64_t)) {
  // Zero pages are zero-valued atomics (a plain 8-byte word here).
  static_assert(sizeof(std::atomic<uint64_t>) == sizeof(uint64_t), "atomic layout");
  words_ = new (MapZeroed(map_bytes_)) std::atomic<uint64_t>[words_count_ + 1];
  for (unsigned k = 0; k < slots && k < kHeadsPerWord; ++k) {
    heads_top_ |= uint64_t{1} << (k * kHeadBits + kHeadBits - 1);
  }
  for (uint64_t t = 0; t < (1U << kTagBits); ++t) {
    offset_[t] = 1 + FastRange64(Mix64(t + 0x9e3779b97f4a7c15ULL), buckets_ - 1);
    offset_bits_[t] = offset_[t] * bucket_bits_;
  }
}

GrowingTable::~GrowingTable() { Unmap(words_, map_bytes_); }

void GrowingTable::Retire() { ReleasePages(words_, map_bytes_); }

bool GrowingTable::Recount() {
  entries_ = 0;
  for (uint64_t& c : by_length_) c = 0;
  for (uint64_t b = 0; b < buckets_; ++b) {
    for (unsigned k = 0; k < w_; ++k) {
      const uint64_t e = Slot(b, k);
      if (e == 0) continue;
      if ((e & tail_mask_) == 0) return false;  // a head with no tail
      Count(e, 1);
    }
  }
  const uint64_t used_bits = buckets_ * bucket_bits_;
  return (used_bits & 63) == 0 || (Word(words_count_ - 1) >> (used_bits & 63)) == 0;
}

double GrowingTable::MatchMass() const {
  double m = 0;
  for (unsigned L = 0; L <= f_; ++L) {
    if (by_length_[L] != 0) m += std::ldexp(static_cast<double>(by_length_[L]), -int(kTagBits + L));
  }
  return m;
}


int GrowingTable::FreeSlot(uint64_t bucket) const {
  const uint32_t free = FreeSlots(bucket);
  return free != 0 ? __builtin_ctz(free) : -1;
}

bool GrowingTable::TailsMatch(uint64_t pos1, uint64_t pos2, uint64_t x1, uint64_t x2,
                              uint64_t hash) const {
  const uint64_t code = CodeFor(hash);
  for (uint32_t m = ZeroHeads(x1); m != 0; m &= m - 1) {
    if (TailMatches(Tail(pos1, static_cast<unsigned>(__builtin_ctz(m))), code)) return true;
  }
  for (uint32_t m = ZeroHeads(x2); m != 0; m &= m - 1) {
    if (TailMatches(Tail(pos2, static_cast<unsigned>(__builtin_ctz(m))), code)) return true;
  }
  return false;
}

unsigned GrowingTable::CountMatches(const Probe& p) const {
  return PopCount8(BucketHas<kAll>(p.i1, p.code)) +
         PopCount8(BucketHas<kAll>(p.i2, p.code | SecondBit()));
}

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
  const uint64_t heads1 = (p.code >> (f_ + 1)) * kHeadOnes;
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
    const uint64_t window = Window(pos[which]), head = code >> (f_ + 1);
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

unsigned GrowingTable::FindMatches(const Probe& p, Found* out) const {
  unsigned n = 0;
  for (int which = 0; which < 2; ++which) {
    const uint64_t b = which == 0 ? p.i1 : p.i2;
    for (uint32_t m = BucketHas<kAll>(b, which == 0 ? p.code : p.code | SecondBit()); m != 0;
         m &= m - 1) {
      const unsigned k = static_cast<unsigned>(__builtin_ctz(m));
      out[n++] = {b, k, PayloadOf(Slot(b, k))};
    }
  }
  return n;
}

uint64_t GrowingTable::LongestPrefix(uint64_t i1, uint64_t entry) const {
  const unsigned length = LengthOf(entry);
  const Probe p{i1, Second(i1, TagOf(entry)), entry};
  Found found[2 * kMaxSlots];
  const unsigned n = FindMatches(p, found);
  uint64_t best = 0;
  for (unsigned j = 0; j < n; ++j) {
    const unsigned L = PayloadLength(found[j].payload);
    if (L <= length && (best == 0 || L > PayloadLength(best))) best = found[j].payload;
  }
  return best;
}

bool GrowingTable::MergeOneCopy(uint64_t bucket, uint64_t* i1, uint64_t* removed,
                                uint64_t* payload) {
  for (unsigned k = 0; k < w_; ++k) {
    const uint64_t e = Slot(bucket, k);
    if (e == 0) continue;
    const uint64_t tag = TagOf(e);
    const uint64_t first = (e & SecondBit()) ? First(bucket, tag) : bucket;
    const Probe p{first, Second(first, tag), e & (SecondBit() - 1)};
    Found found[2 * kMaxSlots];
    const unsigned n = FindMatches(p, found);
    const unsigned length = LengthOf(e);
    for (unsigned j = 0; j < n; ++j) {
      if ((found[j].bucket == bucket && found[j].slot == k) ||
          PayloadLength(found[j].payload) > length) {
        continue;
      }
      *i1 = first;
      *removed = PayloadOf(e);
      *payload = found[j].payload;
      RemoveAt(bucket, k);
      return true;
    }
  }
  return false;
}

void GrowingTable::RemoveAt(uint64_t bucket, unsigned slot) {
  Count(Slot(bucket, slot), -1);
  SetSlot(bucket, slot, 0);
}

bool GrowingTable::Erase(const Probe& p) {
  Found found[2 * kMaxSlots];
  const unsigned n = FindMatches(p, found);
  if (n == 0) return false;
  const Found& f = found[Longest(found, n)];
  RemoveAt(f.bucket, f.slot);
  return true;
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
  return dynamic_cuckoo::PathIsSimple<kMaxDepth + 2>(nodes_, node);
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
    for (size_t h = begin; h < end && nodes_.size() + w_ <= kMaxNodes; ++h) {
      const uint64_t b = nodes_[h].bucket;
      for (unsigned k = 0; k < w_; ++k) {
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

void GrowingTable::WidenInto(GrowingTable* to) const {
  const unsigned shift = to->f_ - f_;  // may wrap: entries are shorter than both
  for (uint64_t i = 0; i < buckets_; ++i) {
    unsigned used = 0;
    for (unsigned k = 0; k < w_; ++k) {
      const uint64_t e = Slot(i, k);
      if (e == 0) continue;
      const unsigned tz = static_cast<unsigned>(__builtin_ctzll(e));
      const uint64_t moved = (e >> tz) << (tz + shift);  // the same L and bit a
      to->SetSlot(i, used++, moved);
      to->Count(moved, 1);
    }
  }
}

void GrowingTable::SplitInto(GrowingTable* to, std::vector<Unplaced>* unplaced) const {
  std::vector<Unplaced> overflow;
  const uint64_t low = SecondBit() - 1;
  for (uint64_t i = 0; i < buckets_; ++i) {
    for (unsigned k = 0; k < w_; ++k) {
      const uint64_t e = Slot(i, k);
      if (e == 0) continue;
      const uint64_t i1 = (e & SecondBit()) ? First(i, TagOf(e)) : i;
      const unsigned L = LengthOf(e);
      uint64_t payload = (e & low) >> (f_ - L);  // [tag][fp: L][1]
      unsigned first = 0, last = 1;  // L = 0: both children
      if (L > 0) {
        first = last = (payload >> L) & 1;
        // Drop the fp's first bit: the address took it.
        payload = ((payload >> (L + 1)) << L) | (payload & ((uint64_t{1} << L) - 1));
      }
      const uint64_t moved = payload << (to->f_ - (L == 0 ? 0 : L - 1));
      for (unsigned c = first; c <= last; ++c) {
        const uint64_t j = 2 * i1 + c;
        int s = to->FreeSlot(j);
        if (s >= 0) {
          to->SetSlot(j, static_cast<unsigned>(s), moved);
          to->Count(moved, 1);
          continue;
        }
        const uint64_t j2 = to->Second(j, to->TagOf(moved));
        s = to->FreeSlot(j2);
        if (s >= 0) {
          to->SetSlot(j2, static_cast<unsigned>(s), moved | to->SecondBit());
          to->Count(moved, 1);
        } else {
          overflow.push_back({j, moved});
        }
      }
    }
  }
  for (const Unplaced& o : overflow) {
    if (!to->Place(o.i1, o.entry)) unplaced->push_back(o);
  }
}

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
