#include "dynamic_cuckoo_table.h"

namespace sstfilter {

namespace {
// Breadth-first search bound: 4 children per bucket, so this reaches depth
// 5 to 6, enough for loads up to ~95% with 4-slot buckets.
constexpr size_t kMaxNodes = 4096;
constexpr size_t kVisitedSlots = 16384;  // power of two, > 2 * kMaxNodes
}  // namespace

DynamicCuckooTable::DynamicCuckooTable(uint64_t num_buckets, unsigned fp_bits)
    : buckets_(num_buckets < 1 ? 1 : num_buckets),
      fp_bits_(fp_bits),
      slot_bits_(SlotBitsFor(fp_bits)),
      fp_max_(fp_bits >= 32 ? 0xffffffffU : ((1U << fp_bits) - 1)),
      words_count_((buckets_ * kSlots * slot_bits_ + 63) / 64),
      words_(new std::atomic<uint64_t>[words_count_]) {
  for (uint64_t i = 0; i < words_count_; ++i) words_[i].store(0, std::memory_order_relaxed);
}

uint32_t DynamicCuckooTable::Slot(uint64_t bucket, unsigned k) const {
  const uint64_t pos = (bucket * kSlots + k) * slot_bits_;
  const uint64_t word = words_[pos >> 6].load(std::memory_order_relaxed);
  const uint64_t mask = slot_bits_ == 32 ? 0xffffffffULL : ((1ULL << slot_bits_) - 1);
  return static_cast<uint32_t>((word >> (pos & 63)) & mask);
}

void DynamicCuckooTable::SetSlot(uint64_t bucket, unsigned k, uint32_t v) {
  const uint64_t pos = (bucket * kSlots + k) * slot_bits_;
  const uint64_t mask = slot_bits_ == 32 ? 0xffffffffULL : ((1ULL << slot_bits_) - 1);
  std::atomic<uint64_t>& w = words_[pos >> 6];
  uint64_t word = w.load(std::memory_order_relaxed);
  word &= ~(mask << (pos & 63));
  word |= static_cast<uint64_t>(v) << (pos & 63);
  // Single writer: a plain store of the whole word; release so that a
  // reader that sees it also sees the seqlock's odd phase that preceded it.
  w.store(word, std::memory_order_release);
}

int DynamicCuckooTable::FreeSlot(uint64_t bucket) const {
  for (unsigned k = 0; k < kSlots; ++k) {
    if (Slot(bucket, k) == 0) return static_cast<int>(k);
  }
  return -1;
}

unsigned DynamicCuckooTable::CountCopies(const Probe& p) const {
  unsigned n = 0;
  for (unsigned k = 0; k < kSlots; ++k) n += Slot(p.i1, k) == p.fp;
  if (p.i2 != p.i1) {
    for (unsigned k = 0; k < kSlots; ++k) n += Slot(p.i2, k) == p.fp;
  }
  return n;
}

bool DynamicCuckooTable::Erase(const Probe& p) {
  for (uint64_t b : {p.i1, p.i2}) {
    for (unsigned k = 0; k < kSlots; ++k) {
      if (Slot(b, k) == p.fp) {
        SetSlot(b, k, 0);
        AddEntries(-1);
        return true;
      }
    }
  }
  return false;
}

bool DynamicCuckooTable::Insert(const Probe& p, std::atomic<uint64_t>* seq) {
  for (uint64_t b : {p.i1, p.i2}) {
    const int k = FreeSlot(b);
    if (k >= 0) {
      SetSlot(b, static_cast<unsigned>(k), p.fp);
      AddEntries(1);
      return true;
    }
  }
  // Both full: breadth-first search for the nearest bucket with room,
  // without moving anything yet.
  nodes_.clear();
  if (visited_.size() != kVisitedSlots) visited_.assign(kVisitedSlots, 0);
  // Only the cells this search sets are cleared afterwards: a search at
  // moderate load touches a few cells, not the whole set.
  touched_.clear();
  auto visit = [&](uint64_t b) {  // true if newly visited
    size_t h = static_cast<size_t>(Mix64(b)) & (kVisitedSlots - 1);
    while (visited_[h] != 0) {
      if (visited_[h] == b + 1) return false;
      h = (h + 1) & (kVisitedSlots - 1);
    }
    visited_[h] = b + 1;
    touched_.push_back(static_cast<uint32_t>(h));
    return true;
  };
  struct Clear {
    std::vector<uint64_t>* v;
    std::vector<uint32_t>* t;
    ~Clear() {
      for (uint32_t h : *t) (*v)[h] = 0;
    }
  } clear{&visited_, &touched_};
  visit(p.i1);
  nodes_.push_back({p.i1, -1, 0});
  if (visit(p.i2)) nodes_.push_back({p.i2, -1, 0});
  int found = -1;
  int found_slot = -1;
  for (size_t head = 0; head < nodes_.size() && found < 0; ++head) {
    const uint64_t b = nodes_[head].bucket;
    for (unsigned k = 0; k < kSlots; ++k) {
      const uint64_t alt = Alt(b, Slot(b, k));
      if (!visit(alt)) continue;
      nodes_.push_back({alt, static_cast<int32_t>(head), static_cast<uint8_t>(k)});
      const int free_k = FreeSlot(alt);
      if (free_k >= 0) {
        found = static_cast<int>(nodes_.size() - 1);
        found_slot = free_k;
        break;
      }
      if (nodes_.size() >= kMaxNodes) break;
    }
    if (nodes_.size() >= kMaxNodes) break;
  }
  if (found < 0) return false;

  // Apply back to front: each entry is written to its new slot before its
  // old slot is overwritten, so it is always stored somewhere. A reader can
  // still read the destination before and the source after a move; the
  // seqlock makes such a reader retry.
  const uint64_t s = seq->load(std::memory_order_relaxed);
  seq->store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  int node = found;
  unsigned dest_slot = static_cast<unsigned>(found_slot);
  while (nodes_[node].parent >= 0) {
    const Node& n = nodes_[node];
    const uint64_t from = nodes_[n.parent].bucket;
    SetSlot(n.bucket, dest_slot, Slot(from, n.slot));
    dest_slot = n.slot;
    node = n.parent;
  }
  SetSlot(nodes_[node].bucket, dest_slot, p.fp);
  seq->store(s + 2, std::memory_order_release);
  AddEntries(1);
  return true;
}

bool DynamicCuckooTable::Recount() {
  uint64_t n = 0;
  for (uint64_t b = 0; b < buckets_; ++b) {
    for (unsigned k = 0; k < kSlots; ++k) {
      const uint32_t v = Slot(b, k);
      if (v > fp_max_) return false;
      n += v != 0;
    }
  }
  // Bits past the last slot (W = 8 with an odd bucket count) must be zero.
  const uint64_t used = buckets_ * kSlots * slot_bits_;
  if ((used & 63) != 0 && (Word(words_count_ - 1) >> (used & 63)) != 0) return false;
  entries_.store(n, std::memory_order_relaxed);
  return true;
}

}  // namespace sstfilter
