// Lookups of the doubling format's read-only reader (legacy_reader.h); its
// Load is in legacy_format.cc.

#include "dynamic/legacy_reader.h"

#include "format/coding.h"
#include "format/hash.h"

namespace sstfilter {
namespace dynamic_cuckoo {

namespace {
constexpr uint64_t kTomb = ~0ULL;  // an erased zero-set cell
}  // namespace

uint64_t LegacyReader::Word(size_t offset, uint64_t i) const {
  return DecodeFixed64(bytes_.data() + offset + 8 * i);
}

uint32_t LegacyReader::Slot(const Member& m, uint64_t bucket, unsigned k) const {
  // A slot ends within the member's words, so w + 1 exists when it is read.
  const uint64_t pos = (bucket * kSlots + k) * m.l;
  const uint64_t w = pos >> 6;
  const unsigned off = pos & 63;
  uint64_t v = Word(m.words, w) >> off;
  if (off + m.l > 64) v |= Word(m.words, w + 1) << (64 - off);
  return static_cast<uint32_t>(v & ((uint64_t{1} << m.l) - 1));
}

uint64_t LegacyReader::Alt(const Member& m, uint64_t i, uint32_t fp) {
  const uint64_t t = FastRange64((fp & m.stable_mask) * 0x9e3779b97f4a7c15ULL, m.base);
  const uint64_t a = (t << m.level) + 2 * (i & m.level_mask);  // < B + 2^(k+1) <= 2B
  uint64_t r = a >= i ? a - i : a + m.buckets - i;
  if (r >= m.buckets) r -= m.buckets;
  return r;
}

LegacyReader::Probe LegacyReader::ProbeFor(const Member& m, uint64_t hash) {
  const Uint128 x = static_cast<Uint128>(hash) * m.buckets;
  Probe p;
  p.i1 = static_cast<uint64_t>(x >> 64);
  p.fp = static_cast<uint32_t>(static_cast<uint64_t>(x) >> (64 - m.l));
  p.i2 = Alt(m, p.i1, p.fp);
  return p;
}

bool LegacyReader::ZeroHas(const Member& m, uint64_t bucket) const {
  const uint64_t mask = m.zero_cap - 1;
  for (uint64_t h = Mix64(bucket) & mask, n = 0; n < m.zero_cap; h = (h + 1) & mask, ++n) {
    const uint64_t v = Word(m.zero, h);
    if (v == 0) return false;
    if (v == bucket + 1) return true;
  }
  return false;
}

bool LegacyReader::Contains(const Member& m, const Probe& p) const {
  if (p.fp == 0) return ZeroHas(m, p.i1) || ZeroHas(m, p.i2);
  for (unsigned k = 0; k < kSlots; ++k) {
    if (Slot(m, p.i1, k) == p.fp || Slot(m, p.i2, k) == p.fp) return true;
  }
  return false;
}

bool LegacyReader::ContainsHash(uint64_t hash) const {
  for (const Member& m : members_) {
    if (Contains(m, ProbeFor(m, hash))) return true;
  }
  return false;
}

void LegacyReader::PrefetchHash(uint64_t hash) const {
  for (const Member& m : members_) {
    const Probe p = ProbeFor(m, hash);
    __builtin_prefetch(bytes_.data() + m.words + 8 * ((p.i1 * kSlots * m.l) >> 6));
    __builtin_prefetch(bytes_.data() + m.words + 8 * ((p.i2 * kSlots * m.l) >> 6));
  }
}

bool LegacyReader::Count(const Member& m, uint64_t* slots, uint64_t* zeros) const {
  *slots = 0;
  for (uint64_t b = 0; b < m.buckets; ++b) {
    for (unsigned k = 0; k < kSlots; ++k) *slots += Slot(m, b, k) != 0;
  }
  // The bits past the last slot are zero.
  const uint64_t used_bits = m.buckets * kSlots * m.l;
  if ((used_bits & 63) != 0 && (Word(m.words, m.num_words - 1) >> (used_bits & 63)) != 0) {
    return false;
  }
  *zeros = 0;
  uint64_t used = 0;
  const uint64_t mask = m.zero_cap - 1;
  for (uint64_t h = 0; h < m.zero_cap; ++h) {
    const uint64_t v = Word(m.zero, h);
    if (v == 0) continue;
    ++used;
    if (v == kTomb) continue;
    if (v > m.buckets) return false;
    // Reachable by a probe from its home cell (no empty cell in between).
    for (uint64_t g = Mix64(v - 1) & mask; g != h; g = (g + 1) & mask) {
      if (Word(m.zero, g) == 0) return false;
    }
    ++*zeros;
  }
  // The writer kept the set at most half used.
  return 2 * used <= m.zero_cap;
}

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
