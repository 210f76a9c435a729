// The growing table of the dynamic cuckoo filter's format version 5
// (dynamic/growing_table.h, growing_layout.h) and its growth
// (dynamic/growing_filter.h): entry coding, splits and widenings that keep
// every entry, erases that never take another key's only entry, and an FPR
// that stays within its target at every size.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "dynamic/growing_filter.h"
#include "dynamic/growing_table.h"
#include "dynamic_test_util.h"
#include "format/hash.h"

namespace sstfilter {
namespace dynamic_cuckoo {
namespace {

uint64_t Pos(uint64_t i) { return Mix64(2 * i + 1); }
uint64_t Neg(uint64_t i) { return Mix64(2 * i + 2); }

std::unique_ptr<GrowingFilter> NewFilter(double fpr, uint64_t initial, uint64_t expected_max = 0) {
  DynamicCuckooOptions o;
  o.target_fpr = fpr;
  o.initial_capacity = initial;
  o.expected_max_keys = expected_max;
  return test::CreateOrFail<GrowingFilter>(o);
}

TEST(GrowingTableTest, AnEntryMatchesTheKeysThatShareItsPrefix) {
  GrowingTable t(300, 2, 5, 12);
  for (uint64_t i = 0; i < 2000; ++i) {
    const GrowingTable::Probe p = t.ProbeFor(Pos(i));
    for (unsigned L = 0; L <= t.fp_bits(); ++L) {
      const uint64_t e = t.EntryAt(p.code, L);
      ASSERT_EQ(t.LengthOf(e), L);
      ASSERT_TRUE(GrowingTable::Matches(e, p.code));
      ASSERT_FALSE(GrowingTable::Matches(e, p.code | t.SecondBit()));  // the other bucket's code
      // A key that differs in fp bit L (counted from 0) or in the tag.
      const uint64_t fp_bit = uint64_t{1} << (t.fp_bits() - L);
      if (L < t.fp_bits()) {
        ASSERT_TRUE(GrowingTable::Matches(e, p.code ^ fp_bit));
      }
      if (L > 0) {
        ASSERT_FALSE(GrowingTable::Matches(e, p.code ^ (fp_bit << 1)));
      }
      ASSERT_FALSE(GrowingTable::Matches(e, p.code ^ (uint64_t{1} << (t.fp_bits() + 1))));
    }
    ASSERT_EQ(t.First(p.i2, t.TagOf(p.code)), p.i1);
    ASSERT_NE(p.i1, p.i2);
  }
  EXPECT_FALSE(GrowingTable::Matches(0, 1));  // an empty slot matches nothing
}

TEST(GrowingTableTest, SplitsAndWideningsKeepEveryKey) {
  // Entries of mixed lengths, down to 0, through a split into narrower
  // buckets (which overflows), a widening and a split into wider buckets.
  // A fifth of the entries have L = 0 and are copied by each split, so the
  // table is filled to 80%: the split leaves it 84% full.
  GrowingTable t(257, 1, 7, 4);
  std::vector<uint64_t> keys;
  for (uint64_t i = 0; t.entries() < 0.8 * t.capacity(); ++i) {
    if (t.Insert(t.ProbeFor(Pos(i)), static_cast<unsigned>(i % 5))) keys.push_back(Pos(i));
  }
  const uint64_t zero_length = t.EntriesOfLength(0), n = t.entries();
  ASSERT_GT(zero_length, 0u);
  GrowingTable split(257, 2, 4, 3);
  std::vector<GrowingTable::Unplaced> unplaced;
  t.SplitInto(&split, &unplaced);
  ASSERT_TRUE(unplaced.empty());
  EXPECT_EQ(split.entries(), n + zero_length);  // L = 0 entries go to both children
  EXPECT_NEAR(split.ExpectedFpr(), t.ExpectedFpr(), 1e-12 + t.ExpectedFpr() * 1e-9);
  GrowingTable wide(257, 2, 5, 3);
  split.WidenInto(&wide);
  EXPECT_EQ(wide.entries(), split.entries());
  GrowingTable again(257, 3, 7, 2);
  wide.SplitInto(&again, &unplaced);
  ASSERT_TRUE(unplaced.empty());
  for (const GrowingTable* g : {&split, &wide, &again}) {
    for (uint64_t h : keys) ASSERT_TRUE(g->Contains(g->ProbeFor(h)));
  }
}

TEST(GrowingFilterTest, GrowsFromAThousandKeysWithinItsTarget) {
  auto f = NewFilter(0.001, 1000);
  uint64_t n = 0;
  unsigned splits_seen = 0;
  for (uint64_t size : {1000, 3000, 10000, 30000, 100000, 300000}) {
    for (; n < size; ++n) ASSERT_EQ(f->InsertHash(Pos(n)), DynamicStatus::kOk);
    for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(f->ContainsHash(Pos(i))) << i << " of " << n;
    ASSERT_LE(f->ExpectedFpr(), 0.001);
    const uint64_t q = 200000;
    uint64_t fp = 0;
    for (uint64_t i = 0; i < q; ++i) fp += f->ContainsHash(Neg(i));
    // The model within sampling error (4 sigma) and 10%.
    const double expected = f->ExpectedFpr() * q;
    EXPECT_LE(fp, 1.1 * expected + 4 * std::sqrt(expected) + 2) << size;
    EXPECT_GE(fp, 0.9 * expected - 4 * std::sqrt(expected) - 2) << size;
    splits_seen = f->table().level();
  }
  EXPECT_GE(splits_seen, 7u);
  EXPECT_EQ(f->Size(), n);
}

TEST(GrowingFilterTest, KeepsTheTargetFarPastItsPlan) {
  // Planned for no growth at all, grown 1000-fold: later phases draw on
  // the reserve, with longer fingerprints (at 0.01% the minimum 8 bits
  // would last for a few phases past the plan).
  auto f = NewFilter(0.0001, 500, 500);
  ASSERT_EQ(f->planned_phases(), 1u);
  const unsigned first_bits = f->new_entry_bits();
  for (uint64_t i = 0; i < 500000; ++i) {
    ASSERT_EQ(f->InsertHash(Pos(i)), DynamicStatus::kOk);
    if ((i & 4095) == 0) {
      ASSERT_LE(f->ExpectedFpr(), 0.0001) << i;
    }
  }
  EXPECT_LE(f->ExpectedFpr(), 0.0001);
  EXPECT_GE(f->new_entry_bits(), first_bits + 5);
  for (uint64_t i = 0; i < 500000; ++i) ASSERT_TRUE(f->ContainsHash(Pos(i)));
}

TEST(GrowingTableTest, ErasesNeverTakeAnotherKeysOnlyEntry) {
  // Few buckets, two tags and fingerprints of 0-3 bits: keys match each
  // other's entries all the time. Copies up to 4; a split halfway, so that
  // L = 0 entries are copied to both children.
  std::mt19937_64 rng(7);
  std::vector<uint64_t> pool;
  for (uint64_t i = 0; pool.size() < 120; ++i) {
    if (GrowingTable::TagFor(Pos(i)) < 2) pool.push_back(Pos(i));
  }
  auto table = std::make_unique<GrowingTable>(4, 0, 7, 3);
  std::map<uint64_t, unsigned> held;  // hash -> copies inserted, not erased
  uint64_t erases = 0, erased_other = 0;
  for (int round = 0; round < 20000; ++round) {
    if (round == 10000) {
      auto split = std::make_unique<GrowingTable>(4, 1, 7, 2);
      std::vector<GrowingTable::Unplaced> unplaced;
      table->SplitInto(split.get(), &unplaced);
      ASSERT_TRUE(unplaced.empty());
      table = std::move(split);
    }
    GrowingTable& t = *table;
    const uint64_t key = pool[rng() % pool.size()];
    const GrowingTable::Probe p = t.ProbeFor(key);
    if (rng() % 2 == 0) {
      if (t.entries() + 1 > 0.8 * t.capacity() || held[key] == 4) continue;
      const unsigned L = static_cast<unsigned>(rng() % (t.fp_bits() + 1));
      if (t.Insert(p, L)) ++held[key];
    } else if (held.count(key) != 0 && held[key] > 0) {
      // Whether the longest match is the key's own is unknown here; count
      // the erases that had a choice.
      erased_other += t.CountMatches(p) > held[key];
      ASSERT_TRUE(t.Erase(p));
      --held[key];
      ++erases;
    }
    for (const auto& [h, copies] : held) {
      if (copies > 0) {
        ASSERT_TRUE(t.Contains(t.ProbeFor(h))) << round;
      }
    }
  }
  EXPECT_GT(erases, 1500u);
  EXPECT_GT(erased_other, 500u);  // the erases did meet other keys' entries
  EXPECT_GT(table->EntriesOfLength(0), 0u);
}

TEST(GrowingTableTest, InsertIfNewFollowsItsSlotRules) {
  // InsertIfNew against its rules read slot by slot: kMatched when an
  // entry of either bucket matches; otherwise the bucket with more zero
  // heads (the first on a tie), its first zero head whose tail is zero.
  // Tags 0 and 1 only, in a table of 3 buckets: entries in their first
  // bucket with tag 0 have a zero head and a tail (the case that sends
  // InsertIfNew to its slot-by-slot loop), buckets fill, eviction paths run.
  std::vector<uint64_t> pool;
  for (uint64_t i = 0; pool.size() < 400; ++i) {
    if (GrowingTable::TagFor(Pos(i)) < 2) pool.push_back(Pos(i));
  }
  uint64_t placed_at_once = 0, after_tag0 = 0, matched = 0, evicted = 0;
  for (unsigned w : {4u, 7u}) {
    for (unsigned round = 0; round < 40; ++round) {
      GrowingTable t(3, 0, w, 6);
      for (unsigned j = 0; j < 5 * w; ++j) {
        const uint64_t key = pool[(round * 37 + j * 11) % pool.size()];
        const GrowingTable::Probe p = t.ProbeFor(key);
        const unsigned L = 2 + (round + j) % (t.fp_bits() - 1);
        const uint64_t b[2] = {p.i1, p.i2};
        const uint64_t code[2] = {p.code, p.code | t.SecondBit()};
        bool match = false;
        unsigned zero_heads[2] = {0, 0};
        for (int which = 0; which < 2; ++which) {
          for (unsigned k = 0; k < w; ++k) {
            const uint64_t e = t.Slot(b[which], k);
            match = match || GrowingTable::Matches(e, code[which]);
            zero_heads[which] += (e >> (t.fp_bits() + 1)) == 0;
          }
        }
        std::vector<uint64_t> before;
        for (uint64_t i = 0; i < 3; ++i) {
          for (unsigned k = 0; k < w; ++k) before.push_back(t.Slot(i, k));
        }
        const GrowingTable::NewKey r = t.InsertIfNew(p, L, nullptr);
        if (match) {
          ASSERT_EQ(r, GrowingTable::NewKey::kMatched);
          ++matched;
          continue;
        }
        const int first = zero_heads[1] > zero_heads[0] ? 1 : 0;
        int want_which = -1;
        unsigned want_k = 0;
        for (int which : {first, 1 - first}) {
          for (unsigned k = 0; k < w && want_which < 0; ++k) {
            if (before[b[which] * w + k] == 0) {
              want_which = which;
              want_k = k;
            }
          }
          if (want_which >= 0) break;
        }
        if (want_which < 0) {  // both full: an eviction path, or no room
          if (r == GrowingTable::NewKey::kPlaced) {
            ++evicted;
            ASSERT_TRUE(t.Contains(p));
          }
          continue;
        }
        ASSERT_EQ(r, GrowingTable::NewKey::kPlaced);
        const uint64_t e = t.EntryAt(p.code, L);
        const uint64_t slot = b[want_which] * w + want_k;
        for (uint64_t i = 0; i < before.size(); ++i) {
          const uint64_t now = t.Slot(i / w, static_cast<unsigned>(i % w));
          ASSERT_EQ(now, i == slot ? (want_which == 0 ? e : e | t.SecondBit()) : before[i])
              << "w " << w << " round " << round << " insert " << j;
        }
        bool skipped_tag0 = false;
        for (unsigned k = 0; k < want_k; ++k) {
          const uint64_t e_k = before[b[want_which] * w + k];
          skipped_tag0 = skipped_tag0 || (e_k != 0 && (e_k >> (t.fp_bits() + 1)) == 0);
        }
        (skipped_tag0 ? after_tag0 : placed_at_once) += 1;
      }
    }
  }
  EXPECT_GT(placed_at_once, 100u);
  EXPECT_GT(after_tag0, 100u);  // a zero head with a tail came first
  EXPECT_GT(matched, 100u);
  EXPECT_GT(evicted, 10u);
}

TEST(GrowingFilterTest, AKeyHoldsAtMostTheCopyLimit) {
  auto f = NewFilter(0.001, 1000);
  for (unsigned c = 0; c < kDynamicCuckooMaxCopies; ++c) {
    ASSERT_EQ(f->InsertHash(Pos(1)), DynamicStatus::kOk);
  }
  EXPECT_EQ(f->InsertHash(Pos(1)), DynamicStatus::kTooManyCopies);
  for (unsigned c = 0; c < kDynamicCuckooMaxCopies; ++c) {
    ASSERT_TRUE(f->ContainsHash(Pos(1)));
    ASSERT_EQ(f->EraseHash(Pos(1)), DynamicStatus::kOk);
  }
  EXPECT_FALSE(f->ContainsHash(Pos(1)));
  EXPECT_EQ(f->EraseHash(Pos(1)), DynamicStatus::kNotFound);
}

// Many copies of few keys with erases: splits that cannot place an entry
// carrying counts. Its counts must follow it to the prefix it is counted
// beside; left beside no entry, they were seen neither by the copy limit
// nor by Erase, which then took the last entry of a key still held.
TEST(GrowingFilterTest, CopiesOfAnEntryASplitCannotPlaceStayCounted) {
  auto f = NewFilter(0.001, 256);
  std::map<uint64_t, unsigned> held;  // key -> copies
  std::vector<uint64_t> keys;         // keys with copies (ids may be stale)
  uint64_t rng = 7, splits_with_counts = 0;
  unsigned level = f->table().level();
  for (uint64_t op = 0; op < 40000; ++op) {
    rng = Mix64(rng + 0x9e3779b97f4a7c15ULL);
    const unsigned choice = static_cast<unsigned>((rng >> 40) % 100);
    if (choice < 70) {
      const uint64_t key = Pos(rng % 2000);
      unsigned& c = held[key];
      const DynamicStatus s = f->InsertHash(key);
      if (c >= kDynamicCuckooMaxCopies) {
        ASSERT_EQ(s, DynamicStatus::kTooManyCopies) << op;
      }
      if (s == DynamicStatus::kOk && c++ == 0) keys.push_back(key);
      if (c == 0) held.erase(key);
    } else if (choice < 95 && !keys.empty()) {
      const size_t i = (rng >> 8) % keys.size();
      auto it = held.find(keys[i]);
      if (it != held.end()) {
        ASSERT_EQ(f->EraseHash(it->first), DynamicStatus::kOk) << op;
        if (--it->second != 0) continue;
        held.erase(it);
      }
      keys[i] = keys.back();
      keys.pop_back();
    }
    if (f->table().level() != level) {
      level = f->table().level();
      if (f->ExtraCopies() != 0) ++splits_with_counts;
    }
    ASSERT_TRUE(f->CountsBesideEntries()) << op;
    if (op % 1000 == 0) {
      for (const auto& k : held) ASSERT_TRUE(f->ContainsHash(k.first)) << op;
    }
  }
  for (const auto& k : held) ASSERT_TRUE(f->ContainsHash(k.first));
  EXPECT_GE(splits_with_counts, 1u);  // the case this test is for was reached
}

TEST(GrowingFilterTest, RejectsBadOptions) {
  std::unique_ptr<GrowingFilter> f;
  DynamicCuckooOptions o;
  o.target_fpr = 0;
  EXPECT_EQ(GrowingFilter::Create(o, &f), DynamicStatus::kInvalidArgument);
  o.target_fpr = 0.01;
  o.initial_capacity = 0;
  EXPECT_EQ(GrowingFilter::Create(o, &f), DynamicStatus::kInvalidArgument);
  o.initial_capacity = 100;
  o.first_member_max_load = 0.99;
  EXPECT_EQ(GrowingFilter::Create(o, &f), DynamicStatus::kInvalidArgument);
  EXPECT_EQ(f, nullptr);
}

}  // namespace
}  // namespace dynamic_cuckoo
}  // namespace sstfilter
