// DynamicCuckooTable's insert at high load (dynamic_cuckoo_table.h): the
// eviction search must place entries up to the 95% load limit and beyond,
// keep every earlier entry, and change nothing when it gives up.

#include "dynamic_cuckoo_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <tuple>
#include <vector>

#include "hash.h"

namespace sstfilter {
namespace {

using Probe = DynamicCuckooTable::Probe;

// Slot k of bucket b, decoded from the raw words (bits [(4b+k)l, +l),
// little-endian), independently of the table's own accessors.
uint32_t SlotOf(const DynamicCuckooTable& t, uint64_t b, unsigned k) {
  const unsigned l = t.fp_bits();
  const uint64_t pos = (b * DynamicCuckooTable::kSlots + k) * l;
  const unsigned off = pos & 63;
  uint64_t v = t.Word(pos >> 6) >> off;
  if (off + l > 64) v |= t.Word((pos >> 6) + 1) << (64 - off);
  return static_cast<uint32_t>(v & ((1ULL << l) - 1));
}

unsigned Occupied(const DynamicCuckooTable& t, uint64_t b) {
  unsigned n = 0;
  for (unsigned k = 0; k < DynamicCuckooTable::kSlots; ++k) n += SlotOf(t, b, k) != 0;
  return n;
}

// Entries with the same bucket pair and fingerprint are interchangeable, so
// the model is a multiset of (pair, fp); every one must have as many
// matching slots in its pair as it has members.
using Entry = std::tuple<uint64_t, uint64_t, uint32_t>;
Entry EntryOf(const Probe& p) {
  return {std::min(p.i1, p.i2), std::max(p.i1, p.i2), p.fp};
}

void ExpectAllPresent(const DynamicCuckooTable& t, const std::map<Entry, unsigned>& model,
                      const char* when) {
  uint64_t total = 0;
  for (const auto& [e, copies] : model) {
    const auto& [a, b, fp] = e;
    unsigned found = 0;
    for (unsigned k = 0; k < DynamicCuckooTable::kSlots; ++k) {
      found += SlotOf(t, a, k) == fp;
      if (b != a) found += SlotOf(t, b, k) == fp;
    }
    ASSERT_GE(found, copies) << when << ": entry lost, buckets " << a << "/" << b;
    total += copies;
  }
  ASSERT_EQ(t.entries(), total) << when;
}

struct Shape {
  uint64_t base;
  unsigned level;
  unsigned fp_bits;  // <= 16 and > 16 take different bucket reads
  double reaches;    // load every insert must reach (a level-k table is 2^k
                     // independent parts of `base` buckets; small ones fill less)
};

TEST(DynamicCuckooTableTest, HighLoadInsertsKeepEveryEntry) {
  for (const Shape& s : {Shape{128, 0, 14, 0.95}, Shape{131, 2, 20, 0.85},
                         Shape{1000, 1, 9, 0.95}, Shape{4097, 0, 17, 0.95},
                         Shape{30011, 0, 14, 0.95}}) {
    SCOPED_TRACE("base " + std::to_string(s.base) + " level " + std::to_string(s.level) +
                 " l " + std::to_string(s.fp_bits));
    DynamicCuckooTable t(s.base, s.level, s.fp_bits, std::min(8u, s.fp_bits), 1024);
    std::atomic<uint64_t> seq{0};
    std::map<Entry, unsigned> model;
    const uint64_t limit = static_cast<uint64_t>(s.reaches * t.capacity());
    uint64_t both_full = 0, key = 0;
    while (t.entries() < limit) {
      const Probe p = t.ProbeFor(Mix64(++key * 0x9e3779b97f4a7c15ULL + s.base));
      if (p.fp == 0) continue;  // the zero set, not the slots under test
      const bool full = Occupied(t, p.i1) == 4 && Occupied(t, p.i2) == 4;
      ASSERT_TRUE(t.Insert(p, &seq)) << "failed at load "
                                     << static_cast<double>(t.entries()) / t.capacity();
      both_full += full;
      ++model[EntryOf(p)];
      if (t.entries() % (t.capacity() / 32) == 0) ExpectAllPresent(t, model, "filling");
    }
    ExpectAllPresent(t, model, "at the load limit");
    // The eviction search really ran, many times: near the limit most
    // inserts find both buckets full.
    EXPECT_GT(both_full, t.capacity() / 40);
    EXPECT_EQ(seq.load() % 2, 0u);
    EXPECT_EQ(seq.load(), 2 * both_full);  // one odd phase per eviction path

    // Past the limit, up to the point where no path is found: a failed
    // insert changes nothing.
    uint64_t failures = 0;
    for (uint64_t tries = 0; tries < t.capacity() / 10 && failures < 20; ++tries) {
      const Probe p = t.ProbeFor(Mix64(++key * 0x9e3779b97f4a7c15ULL + s.base));
      if (p.fp == 0) continue;
      const uint64_t before = t.entries();
      const uint64_t seq_before = seq.load();
      if (t.Insert(p, &seq)) {
        ++model[EntryOf(p)];
      } else {
        ++failures;
        ASSERT_EQ(t.entries(), before);
        ASSERT_EQ(seq.load(), seq_before);  // nothing was moved
      }
    }
    ExpectAllPresent(t, model, "past the limit");
    EXPECT_GT(t.entries(), limit);
    EXPECT_GT(failures, 0u);  // the table did fill: the give-up path ran
  }
}

}  // namespace
}  // namespace sstfilter
