// Peeling a binary fuse filter's key-slot hypergraph (fuse_filter.h): the
// costliest step of construction, kept apart from shapes and encoding.
//
// Per slot the peeler keeps a count byte and the XOR of the remixed
// hashes of the keys holding it (Graf and Lemire's representation): a
// slot held by one key holds that key's hash, so a peeling step reads the
// hash from the slot itself and never goes back to the key array, and
// the assignment finds each key's hash in the slot it was peeled from.
// 9 bytes per slot plus 4 for the peeling order, against the 8 bytes/key
// of keys, which can go once the peeling is done.
//
// Order of peeling (it decides which slot each key is assigned, and so the
// filter's bytes; it must not change without a reason, as the golden
// tests pin those bytes): a queue, first every slot held by one key after
// counting, front to back, then each slot a peeling step leaves held by
// one key, in the order freed. A queue rather than a stack lets the core
// overlap consecutive steps: the next slot does not depend on what this
// step pushes.
//
// Not thread-safe; one peeling per object.

#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "filters/fuse_hashing.h"

namespace sstfilter {

enum class PeelResult { kDone, kStalled };

template <int Arity>
class FusePeeler {
 public:
  // Requires num_slots < 2^32 and `hashing` of that many slots; `keys`
  // (remixed hashes) outlives Run.
  FusePeeler(const FuseHashing& hashing, uint64_t num_slots);

  // Peels the hypergraph of `*keys`. Copies of one hash (which no
  // peeling separates) are found when peeling stalls and all but one left
  // out; if 256 or more keys share a slot (a count byte wraps: only
  // copies of one hash get there), *keys is sorted and its copies dropped
  // first. kDone: every key but those copies was peeled; kStalled: the
  // graph has a core, and another seed is needed.
  PeelResult Run(std::vector<uint64_t>* keys);

  // After kDone, the keys in peeling order, q < peeled():
  // peel_order()[q] is the slot the q-th key was peeled from, and
  // slot_hashes()[that slot] the key's remixed hash. The keys array is no
  // longer needed. Raw arrays, so the assignment loop can hold them in
  // registers.
  size_t peeled() const { return peeled_; }
  const uint32_t* peel_order() const { return order_.get(); }
  const uint64_t* slot_hashes() const { return hash_.get(); }

 private:
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  // False if a count byte overflowed (256 keys in one slot).
  bool Count(const std::vector<uint64_t>& keys);
  // Peels the queued slots, and those their keys free, until the queue is
  // empty.
  void PeelQueued();
  // Takes the key of hash h, whose slots are s, out of the graph; pushes
  // the slots it leaves holding one key.
  void Remove(uint64_t h, const uint64_t s[Arity]);
  // Peeling stalled: takes all but one of each group of equal hashes
  // among the keys not peeled out of the graph. Returns how many.
  size_t RemoveDuplicates(const std::vector<uint64_t>& keys);

  const FuseHashing& hashing_;
  uint64_t num_slots_;
  // calloc: large arrays come zeroed from the system, with no pass here.
  std::unique_ptr<uint64_t[], Free> hash_;
  std::unique_ptr<uint8_t[], Free> count_;
  // num_slots + 1 entries: peeled slots at the front, [0, peeled_);
  // the queue of slots waiting to be peeled, [head_, tail_), behind them
  // (peeled_ <= head_: a step reads its slot before writing it as peeled).
  // Each slot is queued at most once (a count drops to 1 at most once; a
  // peeled slot's restored count is never lowered, as no key holds it any
  // more), so tail_ stays at most num_slots.
  std::unique_ptr<uint32_t[]> order_;
  std::vector<uint64_t> removed_;  // copies taken out, as hashes
  size_t peeled_ = 0;
  uint64_t head_ = 0;
  uint64_t tail_ = 0;
};

extern template class FusePeeler<3>;
extern template class FusePeeler<4>;

}  // namespace sstfilter
