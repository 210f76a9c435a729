// GrowingTable's growth steps, each into a new empty table that the owner
// publishes when it is full: widening (the same buckets, a slot more,
// entries in place) and splitting (twice the buckets, an fp bit fewer).

#include <vector>

#include "dynamic/growing_table.h"

namespace sstfilter {
namespace dynamic_cuckoo {

void GrowingTable::WidenInto(GrowingTable* to) const {
  const unsigned shift = to->fp_bits_ - fp_bits_;  // may wrap: entries are shorter than both
  for (uint64_t i = 0; i < buckets_; ++i) {
    unsigned used = 0;
    for (unsigned k = 0; k < slots_; ++k) {
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
    for (unsigned k = 0; k < slots_; ++k) {
      const uint64_t e = Slot(i, k);
      if (e == 0) continue;
      const uint64_t i1 = (e & SecondBit()) ? First(i, TagOf(e)) : i;
      const unsigned L = LengthOf(e);
      uint64_t payload = (e & low) >> (fp_bits_ - L);  // [tag][fp: L][1]
      unsigned first = 0, last = 1;  // L = 0: both children
      if (L > 0) {
        first = last = (payload >> L) & 1;
        // Drop the fp's first bit: the address took it.
        payload = ((payload >> (L + 1)) << L) | (payload & ((uint64_t{1} << L) - 1));
      }
      const uint64_t moved = payload << (to->fp_bits_ - (L == 0 ? 0 : L - 1));
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
