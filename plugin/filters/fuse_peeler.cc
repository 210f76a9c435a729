// Peeling a binary fuse filter's hypergraph; see fuse_peeler.h.

#include "filters/fuse_peeler.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace sstfilter {
namespace {

template <typename T>
T* Zeroed(uint64_t n) {
  void* p = std::calloc(n, sizeof(T));
  if (p == nullptr) throw std::bad_alloc();
  return static_cast<T*>(p);
}

}  // namespace

template <int Arity>
FusePeeler<Arity>::FusePeeler(const FuseHashing& hashing, uint64_t num_slots)
    : hashing_(hashing),
      num_slots_(num_slots),
      hash_(Zeroed<uint64_t>(num_slots)),
      count_(Zeroed<uint8_t>(num_slots)),
      order_(new uint32_t[num_slots + 1]) {}

template <int Arity>
bool FusePeeler<Arity>::Count(const std::vector<uint64_t>& keys) {
  // Local restrict pointers: count bytes may alias anything, and the
  // compiler would otherwise reload the arrays after every increment.
  uint64_t* __restrict const hash = hash_.get();
  uint8_t* __restrict const count = count_.get();
  uint64_t s[Arity];
  for (uint64_t h : keys) {
    hashing_.Slots<Arity>(h, s);
#pragma GCC unroll 4
    for (int j = 0; j < Arity; ++j) {
      ++count[s[j]];
      hash[s[j]] ^= h;
    }
  }
  // A count byte that wrapped (256 keys in one slot) left the total short
  // by a multiple of 256: one sequential pass instead of a test per
  // increment.
  uint64_t total = 0;
  for (uint64_t i = 0; i < num_slots_; ++i) total += count[i];
  return total == static_cast<uint64_t>(Arity) * keys.size();
}

template <int Arity>
PeelResult FusePeeler<Arity>::Run(std::vector<uint64_t>* keys) {
  if (!Count(*keys)) {
    // Only copies of one hash fill a slot so: drop them, count again.
    std::sort(keys->begin(), keys->end());
    keys->erase(std::unique(keys->begin(), keys->end()), keys->end());
    std::memset(hash_.get(), 0, num_slots_ * sizeof(uint64_t));
    std::memset(count_.get(), 0, num_slots_);
    if (!Count(*keys)) return PeelResult::kStalled;  // distinct: never seen
  }
  // Every slot held by one key, front to back, queued; then each peeling
  // step queues the slots it leaves held by one key.
  uint32_t* const order = order_.get();
  const uint8_t* const count = count_.get();
  uint64_t tail = 0;
  for (uint64_t i = 0; i < num_slots_; ++i) {
    order[tail] = static_cast<uint32_t>(i);
    tail += static_cast<uint64_t>(count[i] == 1);
  }
  tail_ = tail;
  size_t removed = 0;
  for (;;) {
    PeelQueued();
    if (peeled_ + removed == keys->size()) return PeelResult::kDone;
    const size_t more = RemoveDuplicates(*keys);
    if (more == 0) return PeelResult::kStalled;
    removed += more;
  }
}

template <int Arity>
void FusePeeler<Arity>::PeelQueued() {
  // Locals, restrict-qualified: through the arrays' members the compiler
  // reloads every pointer after each count byte written (a byte may alias
  // anything), and this loop is most of the peeling's time.
  uint64_t* __restrict const hash = hash_.get();
  uint8_t* __restrict const count = count_.get();
  uint32_t* __restrict const order = order_.get();
  const FuseHashing hashing = hashing_;
  uint64_t head = head_, tail = tail_;
  size_t peeled = peeled_;
  uint64_t s[Arity];
  // A queue, not a stack: the next slot to peel does not wait for the
  // pushes of this one, so consecutive steps overlap in the core (a
  // quarter faster than a stack at 10k-100k keys).
  for (; head < tail; ++head) {
    const uint32_t t = order[head];
    // Skip a slot whose key left through another slot.
    if (count[t] != 1) continue;
    const uint64_t h = hash[t];
    hashing.Slots<Arity>(h, s);
    // peeled <= head: this entry was just read, so the write is safe.
    order[peeled++] = t;
    // The key leaves all its slots, t included (which drops to no keys and
    // is never queued); t then gets its key back, for the assignment. No
    // key reaches t after this: it held only this one.
#pragma GCC unroll 4
    for (int i = 0; i < Arity; ++i) {
      hash[s[i]] ^= h;
      const uint8_t c = --count[s[i]];
      // Written whether queued or not (no branch to mispredict): tail is
      // at most num_slots, the array's last entry.
      order[tail] = static_cast<uint32_t>(s[i]);
      tail += static_cast<uint64_t>(c == 1);
    }
    hash[t] = h;
    count[t] = 1;
  }
  head_ = head;
  tail_ = tail;
  peeled_ = peeled;
}

template <int Arity>
void FusePeeler<Arity>::Remove(uint64_t h, const uint64_t s[Arity]) {
  for (int i = 0; i < Arity; ++i) {
    hash_[s[i]] ^= h;
    if (--count_[s[i]] == 1) order_[tail_++] = static_cast<uint32_t>(s[i]);
  }
}

template <int Arity>
size_t FusePeeler<Arity>::RemoveDuplicates(const std::vector<uint64_t>& keys) {
  // A key not peeled holds at least two keys in each of its slots; a
  // peeled key has one slot (the one it was peeled from) held by it alone.
  std::vector<uint64_t> left;
  uint64_t s[Arity];
  for (uint64_t h : keys) {
    hashing_.Slots<Arity>(h, s);
    bool core = true;
    for (int i = 0; i < Arity; ++i) core &= count_[s[i]] >= 2;
    if (core) left.push_back(h);
  }
  std::sort(left.begin(), left.end());
  std::sort(removed_.begin(), removed_.end());
  std::vector<uint64_t> taken_now;
  for (size_t i = 0; i < left.size();) {
    size_t j = i + 1;
    while (j < left.size() && left[j] == left[i]) ++j;
    // Copies of one hash share all their slots, so all of them are left;
    // the graph holds those not taken out in an earlier round.
    const auto gone = std::equal_range(removed_.begin(), removed_.end(), left[i]);
    const size_t held = (j - i) - static_cast<size_t>(gone.second - gone.first);
    hashing_.Slots<Arity>(left[i], s);
    for (size_t k = 1; k < held; ++k) {
      Remove(left[i], s);
      taken_now.push_back(left[i]);
    }
    i = j;
  }
  removed_.insert(removed_.end(), taken_now.begin(), taken_now.end());
  return taken_now.size();
}

template class FusePeeler<3>;
template class FusePeeler<4>;

}  // namespace sstfilter
