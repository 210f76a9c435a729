// DynamicCuckooFilter: the contracts of sstfilter/dynamic_cuckoo.h (its
// saved form: dynamic_cuckoo_format_test).

#include "sstfilter/dynamic_cuckoo.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "dynamic/dynamic_cuckoo_table.h"
#include "dynamic_test_util.h"
#include "format/hash.h"

namespace sstfilter {
namespace {

using test::Key;
using test::Make;

TEST(DynamicCuckooTest, RejectsBadOptions) {
  std::unique_ptr<DynamicCuckooFilter> f;
  DynamicCuckooOptions o;
  for (double fpr : {0.0, -1.0, 0.5, 0.9, std::nan("")}) {
    o.target_fpr = fpr;
    EXPECT_EQ(DynamicCuckooFilter::Create(o, &f), DynamicStatus::kInvalidArgument) << fpr;
  }
  o.target_fpr = 0.01;
  o.initial_capacity = 0;
  EXPECT_EQ(DynamicCuckooFilter::Create(o, &f), DynamicStatus::kInvalidArgument);
  EXPECT_EQ(f, nullptr);
}

TEST(DynamicCuckooTest, RejectsBadFirstMemberOptions) {
  std::unique_ptr<DynamicCuckooFilter> f;
  for (double share : {1.0, 1.5, -0.1, std::nan("")}) {
    DynamicCuckooOptions o;
    o.first_member_fpr_share = share;
    EXPECT_EQ(DynamicCuckooFilter::Create(o, &f), DynamicStatus::kInvalidArgument) << share;
  }
  for (double load : {0.4, 0.96, -1.0, std::nan("")}) {
    DynamicCuckooOptions o;
    o.first_member_max_load = load;
    EXPECT_EQ(DynamicCuckooFilter::Create(o, &f), DynamicStatus::kInvalidArgument) << load;
  }
  EXPECT_EQ(f, nullptr);
}

// The key guard's schedule: the first member takes 90% of the target and
// fills to 90%. At 0.1% that is 13-bit fingerprints (8 * 0.9 * 2^-13 =
// 0.088%), where the standard schedule (61%, 95%) needs 14 bits; members
// after it share the remaining 10%, so the target holds through growth.
TEST(DynamicCuckooTest, FirstMemberShareAndLoadLimit) {
  DynamicCuckooOptions o;
  o.format_version = test::kLegacyFormat;  // its members' bits and loads
  o.target_fpr = 0.001;
  o.initial_capacity = 20000;
  o.expected_max_keys = 20000;  // no doubling planned: the first member keeps its bits
  o.first_member_fpr_share = 0.9;
  o.first_member_max_load = 0.9;
  std::unique_ptr<DynamicCuckooFilter> f;
  ASSERT_EQ(DynamicCuckooFilter::Create(o, &f), DynamicStatus::kOk);
  DynamicCuckooOptions standard = o;
  standard.first_member_fpr_share = 0;
  standard.first_member_max_load = 0;
  std::unique_ptr<DynamicCuckooFilter> g;
  ASSERT_EQ(DynamicCuckooFilter::Create(standard, &g), DynamicStatus::kOk);
  // Each first member is sized to hold initial_capacity under its limit.
  const size_t bytes_f = f->MemoryBytes(), bytes_g = g->MemoryBytes();
  for (uint64_t i = 0; i < o.initial_capacity; ++i) {
    ASSERT_EQ(f->InsertHash(Mix64(i + 1)), DynamicStatus::kOk);
    ASSERT_EQ(g->InsertHash(Mix64(i + 1)), DynamicStatus::kOk);
  }
  ASSERT_EQ(f->MemoryBytes(), bytes_f);
  ASSERT_EQ(g->MemoryBytes(), bytes_g);
  EXPECT_LT(bytes_f, bytes_g);  // 13 bits at 90% < 14 bits at 95%
  // The model FPR at the load limit, 8 L 2^-l, tells load and bits apart:
  // just before the first growth step L is the limit.
  uint64_t n = o.initial_capacity;
  double before = f->ExpectedFpr();
  while (f->MemoryBytes() == bytes_f) {
    before = f->ExpectedFpr();
    ASSERT_EQ(f->InsertHash(Mix64(++n)), DynamicStatus::kOk);
  }
  const double load = before / (8 * std::ldexp(1.0, -13));
  EXPECT_GT(load, 0.89);
  EXPECT_LE(load, 0.9 + 1e-3);
  EXPECT_LE(before, 0.9 * o.target_fpr);
  // Growth past it keeps every key and the target.
  for (; n < 200000; ++n) ASSERT_EQ(f->InsertHash(Mix64(n + 1)), DynamicStatus::kOk);
  for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(f->ContainsHash(Mix64(i + 1))) << i;
  EXPECT_LE(f->ExpectedFpr(), o.target_fpr);
  uint64_t fp = 0;
  const uint64_t probes = 400000;
  for (uint64_t i = 0; i < probes; ++i) fp += f->ContainsHash(Mix64(i + (1ULL << 40)));
  EXPECT_LT(static_cast<double>(fp) / probes, 0.001 + 5 * std::sqrt(0.001 / probes));
}

TEST(DynamicCuckooTest, InsertContainsEraseWithGrowth) {
  auto f = Make(0.001, 1000);
  const uint64_t n = 200000;  // many growth steps from 1000
  for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(f->Insert(Key(i)), DynamicStatus::kOk) << i;
  EXPECT_EQ(f->Size(), n);
  for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(f->Contains(Key(i))) << i;
  // Batched answers equal single ones.
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < 2000; ++i) keys.push_back(Key(i * 197));
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::unique_ptr<bool[]> res(new bool[views.size()]);
  f->ContainsBatch(views.data(), views.size(), res.get());
  for (size_t i = 0; i < views.size(); ++i) EXPECT_EQ(res[i], f->Contains(views[i]));
  // FPR within target (expected <= 0.001; 400k probes: bound has > 5 sigma).
  uint64_t fp = 0;
  const uint64_t probes = 400000;
  for (uint64_t i = 0; i < probes; ++i) fp += f->Contains("absent" + std::to_string(i));
  EXPECT_LE(f->ExpectedFpr(), 0.001);
  EXPECT_LT(static_cast<double>(fp) / probes, 0.001 + 5 * std::sqrt(0.001 / probes));
  // Erase half; the other half still matches.
  for (uint64_t i = 0; i < n; i += 2) ASSERT_EQ(f->Erase(Key(i)), DynamicStatus::kOk) << i;
  EXPECT_EQ(f->Size(), n / 2);
  for (uint64_t i = 1; i < n; i += 2) ASSERT_TRUE(f->Contains(Key(i))) << i;
}

TEST(DynamicCuckooTest, DuplicatesAreCappedNotCorrupting) {
  auto f = Make(0.01, 64, /*checked=*/true);
  for (uint64_t i = 0; i < 100; ++i) ASSERT_EQ(f->Insert(Key(i)), DynamicStatus::kOk);
  int ok = 0;
  DynamicStatus last = DynamicStatus::kOk;
  for (int i = 0; i < 20; ++i) {
    last = f->Insert("dup");
    if (last == DynamicStatus::kOk) ++ok;
  }
  EXPECT_EQ(last, DynamicStatus::kTooManyCopies);
  EXPECT_GE(ok, 1);
  EXPECT_EQ(f->Size(), 100u + ok);
  for (uint64_t i = 0; i < 100; ++i) ASSERT_TRUE(f->Contains(Key(i)));
  for (int i = 0; i < ok; ++i) {
    EXPECT_TRUE(f->Contains("dup"));
    ASSERT_EQ(f->Erase("dup"), DynamicStatus::kOk);
  }
  EXPECT_EQ(f->Erase("dup"), DynamicStatus::kNotFound);  // checked mode
  for (uint64_t i = 0; i < 100; ++i) ASSERT_TRUE(f->Contains(Key(i)));
}

TEST(DynamicCuckooTest, CheckedModeDetectsWrongErase) {
  auto f = Make(0.01, 1024, /*checked=*/true);
  ASSERT_EQ(f->Insert("a"), DynamicStatus::kOk);
  EXPECT_EQ(f->Erase("never"), DynamicStatus::kNotFound);
  EXPECT_EQ(f->Size(), 1u);
  EXPECT_EQ(f->Erase("a"), DynamicStatus::kOk);
  EXPECT_EQ(f->Erase("a"), DynamicStatus::kNotFound);
}

// The two properties growth rests on (dynamic_cuckoo_table.h): alt is an
// involution at every level, and doubling maps pairs onto pairs:
// alt_{k+1}(2i + b) = 2 alt_k(i) + b.
TEST(DynamicCuckooTest, AltIsAnInvolutionAndCommutesWithDoubling) {
  for (uint64_t base : {128u, 131u, 1000u, 4097u}) {
    for (unsigned level : {0u, 1u, 3u, 9u}) {
      DynamicCuckooTable t(base, level, 20, 8, 16), t2(base, level + 1, 19, 8, 16);
      for (uint64_t x = 1; x < 3000; ++x) {
        const uint64_t i = Mix64(x) % t.num_buckets();
        const uint32_t fp = static_cast<uint32_t>(Mix64(x + 7)) & ((1u << 20) - 1);
        const uint64_t j = t.Alt(i, fp);
        ASSERT_LT(j, t.num_buckets());
        ASSERT_EQ(t.Alt(j, fp), i);
        ASSERT_EQ(j & ((1ULL << level) - 1), i & ((1ULL << level) - 1));
        const uint32_t b = fp >> 19, rest = fp & ((1u << 19) - 1);
        ASSERT_EQ(t2.Alt(2 * i + b, rest), 2 * j + b);
      }
    }
  }
}

// Past expected_max_keys the fingerprints cannot shrink further: a second
// member starts, and the filter keeps every key and its FPR target.
TEST(DynamicCuckooTest, GrowsPastThePlanWithASecondMember) {
  DynamicCuckooOptions o;
  o.target_fpr = 0.01;
  o.initial_capacity = 500;
  o.expected_max_keys = 2000;  // two doublings planned
  std::unique_ptr<DynamicCuckooFilter> f;
  ASSERT_EQ(DynamicCuckooFilter::Create(o, &f), DynamicStatus::kOk);
  const uint64_t n = 100000;
  for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(f->InsertHash(Mix64(i + 1)), DynamicStatus::kOk);
  for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(f->ContainsHash(Mix64(i + 1)));
  uint64_t fp = 0;
  const uint64_t probes = 200000;
  for (uint64_t i = 0; i < probes; ++i) fp += f->ContainsHash(Mix64(i + (1ULL << 40)));
  EXPECT_LE(f->ExpectedFpr(), 0.01);
  EXPECT_LT(static_cast<double>(fp) / probes, 0.01 + 5 * std::sqrt(0.01 / probes));
  std::string bytes;
  f->Save(&bytes);
  std::unique_ptr<DynamicCuckooFilter> g;
  ASSERT_EQ(DynamicCuckooFilter::Load(bytes, &g), DynamicStatus::kOk);
  for (uint64_t i = 0; i < n; i += 7) ASSERT_TRUE(g->ContainsHash(Mix64(i + 1)));
}

// InsertBatch is n Inserts in order: same statuses (growth steps, a second
// member, copies past the limit included) and, byte for byte, the same
// filter.
TEST(DynamicCuckooTest, InsertBatchIsInsertsInOrder) {
  DynamicCuckooOptions o;
  o.target_fpr = 0.01;
  o.initial_capacity = 300;
  o.expected_max_keys = 5000;  // doublings, then a second member
  std::unique_ptr<DynamicCuckooFilter> one, batch;
  ASSERT_EQ(DynamicCuckooFilter::Create(o, &one), DynamicStatus::kOk);
  ASSERT_EQ(DynamicCuckooFilter::Create(o, &batch), DynamicStatus::kOk);
  // 30,000 keys, every 50th followed by six more copies of itself (the
  // last of which are refused).
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < 30000; ++i) {
    keys.push_back(Key(i));
    if (i % 50 == 0) keys.insert(keys.end(), 6, Key(i));
  }
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<DynamicStatus> statuses(views.size());
  // Uneven slices: the batch's look-ahead crosses nothing it should not.
  for (size_t start = 0, len = 1; start < views.size(); start += len, len = len * 3 % 997 + 1) {
    const size_t m = std::min(len, views.size() - start);
    batch->InsertBatch(views.data() + start, m, statuses.data() + start);
  }
  size_t refused = 0;
  for (size_t i = 0; i < views.size(); ++i) {
    ASSERT_EQ(statuses[i], one->Insert(views[i])) << i;
    refused += statuses[i] == DynamicStatus::kTooManyCopies;
  }
  EXPECT_GT(refused, 0u);
  EXPECT_EQ(batch->Size(), one->Size());
  std::string a, b;
  one->Save(&a);
  batch->Save(&b);
  EXPECT_EQ(a, b);
  for (uint64_t i = 0; i < 30000; ++i) ASSERT_TRUE(batch->Contains(Key(i))) << i;
}

}  // namespace
}  // namespace sstfilter
