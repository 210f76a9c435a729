// DynamicCuckooFilter: the contracts of sstfilter/dynamic_cuckoo.h.

#include "sstfilter/dynamic_cuckoo.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "hash.h"

namespace sstfilter {
namespace {

std::unique_ptr<DynamicCuckooFilter> Make(double fpr = 0.001, uint64_t cap = 1024,
                                          bool checked = false) {
  DynamicCuckooOptions o;
  o.target_fpr = fpr;
  o.initial_capacity = cap;
  o.checked = checked;
  std::unique_ptr<DynamicCuckooFilter> f;
  EXPECT_EQ(DynamicCuckooFilter::Create(o, &f), DynamicStatus::kOk);
  return f;
}

std::string Key(uint64_t i) { return "key" + std::to_string(i); }

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

TEST(DynamicCuckooTest, SaveLoadRoundTrip) {
  for (bool checked : {false, true}) {
    auto f = Make(0.001, 500, checked);
    for (uint64_t i = 0; i < 20000; ++i) ASSERT_EQ(f->Insert(Key(i)), DynamicStatus::kOk);
    for (uint64_t i = 0; i < 20000; i += 3) ASSERT_EQ(f->Erase(Key(i)), DynamicStatus::kOk);
    std::string bytes = "prefix";
    f->Save(&bytes);
    std::unique_ptr<DynamicCuckooFilter> g;
    ASSERT_EQ(DynamicCuckooFilter::Load(std::string_view(bytes).substr(6), &g),
              DynamicStatus::kOk);
    EXPECT_EQ(g->Size(), f->Size());
    EXPECT_EQ(g->MemoryBytes(), f->MemoryBytes());
    for (uint64_t i = 0; i < 20000; ++i) {
      ASSERT_EQ(g->Contains(Key(i)), f->Contains(Key(i))) << i;
      if (i % 3 != 0) {
        ASSERT_TRUE(g->Contains(Key(i)));
      }
    }
    std::string again;
    g->Save(&again);
    EXPECT_EQ(again, bytes.substr(6));
    // The loaded filter keeps working.
    for (uint64_t i = 20000; i < 30000; ++i) ASSERT_EQ(g->Insert(Key(i)), DynamicStatus::kOk);
    for (uint64_t i = 1; i < 30000; i += 3) ASSERT_TRUE(g->Contains(Key(i)));
  }
}

TEST(DynamicCuckooTest, DamagedInputIsCorrupt) {
  auto f = Make(0.01, 100, true);
  for (uint64_t i = 0; i < 300; ++i) ASSERT_EQ(f->Insert(Key(i)), DynamicStatus::kOk);
  std::string bytes;
  f->Save(&bytes);
  std::unique_ptr<DynamicCuckooFilter> g;
  for (size_t len = 0; len < bytes.size(); ++len) {
    ASSERT_EQ(DynamicCuckooFilter::Load(std::string_view(bytes.data(), len), &g),
              DynamicStatus::kCorrupt) << len;
  }
  for (size_t pos = 0; pos < bytes.size(); ++pos) {
    for (int bit : {0, 3, 7}) {
      std::string damaged = bytes;
      damaged[pos] = static_cast<char>(damaged[pos] ^ (1 << bit));
      ASSERT_EQ(DynamicCuckooFilter::Load(damaged, &g), DynamicStatus::kCorrupt) << pos;
    }
  }
  EXPECT_EQ(g, nullptr);
  EXPECT_EQ(DynamicCuckooFilter::Load(bytes + "x", &g), DynamicStatus::kCorrupt);
  EXPECT_EQ(DynamicCuckooFilter::Load("not a filter at all, just text....."
                                      "...........................", &g),
            DynamicStatus::kCorrupt);
}

}  // namespace
}  // namespace sstfilter
