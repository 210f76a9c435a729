// DynamicCuckooFilter: the contracts of sstfilter/dynamic_cuckoo.h (its
// saved form: growing_format_test, dynamic_legacy_test).

#include "sstfilter/dynamic_cuckoo.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

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

// Past expected_max_keys the filter keeps growing, every key and its FPR
// target.
TEST(DynamicCuckooTest, GrowsPastThePlan) {
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

// InsertBatch is n Inserts in order: same statuses (growth steps past the
// plan, copies past the limit included) and, byte for byte, the same
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
