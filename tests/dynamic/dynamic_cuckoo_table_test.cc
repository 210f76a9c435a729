// DynamicCuckooTable's insert at high load (dynamic_cuckoo_table.h): the
// eviction search must place entries up to the 95% load limit and beyond,
// keep every earlier entry, and change nothing when it gives up.

#include "dynamic/dynamic_cuckoo_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <tuple>
#include <vector>

#include "format/hash.h"

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

// CountCopies hands the pair it read to Insert (InsertHash reads each
// bucket once). Counting and placing from that pair must agree with
// reading afresh: copies against an independent count of the raw slots
// (a pair whose two buckets are one counts it once), and two tables fed
// the same inserts, one each way, must end with the same words.
TEST(DynamicCuckooTableTest, PairReadOnceCountsAndPlacesAsFreshReads) {
  for (unsigned l : {9u, 14u, 20u}) {
    SCOPED_TRACE("l " + std::to_string(l));
    DynamicCuckooTable fresh(128, 1, l, std::min(8u, l), 1024);
    DynamicCuckooTable reused(128, 1, l, std::min(8u, l), 1024);
    std::atomic<uint64_t> seq_fresh{0}, seq_reused{0};
    // Few distinct keys, inserted repeatedly: fingerprints repeat in a
    // pair, so copies above one are counted too. A tenth of them have a
    // pair of one bucket (rare among random keys: picked out).
    std::vector<uint64_t> keys, one_bucket;
    for (uint64_t i = 0; keys.size() < 540 || one_bucket.size() < 60; ++i) {
      const uint64_t hash = Mix64(i * 0x9e3779b97f4a7c15ULL);
      const Probe p = fresh.ProbeFor(hash);
      if (p.fp == 0) continue;
      if (p.i1 == p.i2 && one_bucket.size() < 60) one_bucket.push_back(hash);
      if (p.i1 != p.i2 && keys.size() < 540) keys.push_back(hash);
    }
    keys.insert(keys.end(), one_bucket.begin(), one_bucket.end());
    uint64_t one_bucket_pairs = 0;
    for (uint64_t i = 0; fresh.entries() < 0.9 * fresh.capacity(); ++i) {
      const Probe p = fresh.ProbeFor(keys[Mix64(i) % keys.size()]);
      unsigned expected = 0;
      for (unsigned k = 0; k < DynamicCuckooTable::kSlots; ++k) {
        expected += SlotOf(fresh, p.i1, k) == p.fp;
        if (p.i2 != p.i1) expected += SlotOf(fresh, p.i2, k) == p.fp;
      }
      one_bucket_pairs += p.i1 == p.i2 && expected > 0;
      DynamicCuckooTable::PairSlots pair;
      ASSERT_EQ(fresh.CountCopies(p), expected);
      ASSERT_EQ(reused.CountCopies(p, &pair), expected);
      for (unsigned k = 0; k < DynamicCuckooTable::kSlots; ++k) {
        ASSERT_EQ(pair.first[k], SlotOf(reused, p.i1, k));
        ASSERT_EQ(pair.second[k], SlotOf(reused, p.i2, k));
      }
      if (expected >= 4) continue;  // as InsertHash: no more copies
      ASSERT_EQ(fresh.Insert(p, &seq_fresh), reused.Insert(p, &seq_reused, &pair));
    }
    ASSERT_EQ(fresh.num_words(), reused.num_words());
    for (uint64_t w = 0; w < fresh.num_words(); ++w) ASSERT_EQ(fresh.Word(w), reused.Word(w)) << w;
    EXPECT_EQ(seq_fresh.load(), seq_reused.load());
    EXPECT_GT(seq_fresh.load(), 0u);  // evictions ran
    EXPECT_GT(one_bucket_pairs, 10u);  // repeats in one-bucket pairs were counted
  }
}

}  // namespace
}  // namespace sstfilter
