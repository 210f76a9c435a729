// GrowingTable: what it holds (counts, lookups, matches) and removal by
// match. Inserts are in growing_insert.cc, growth in growing_resize.cc.

#include "dynamic/growing_table.h"

#include <cmath>

namespace sstfilter {
namespace dynamic_cuckoo {

bool GrowingTable::Recount() {
  entries_ = 0;
  for (uint64_t& c : by_length_) c = 0;
  for (uint64_t b = 0; b < buckets_; ++b) {
    for (unsigned k = 0; k < slots_; ++k) {
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
  for (unsigned L = 0; L <= fp_bits_; ++L) {
    if (by_length_[L] != 0) m += std::ldexp(static_cast<double>(by_length_[L]), -int(kTagBits + L));
  }
  return m;
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
  for (unsigned k = 0; k < slots_; ++k) {
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

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
