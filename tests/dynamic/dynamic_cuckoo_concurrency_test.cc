// DynamicCuckooFilter's thread-safety contract: readers running alongside
// the one writer never miss a key inserted (and not erased) before their
// query started, while the writer inserts, evicts, erases other keys and
// grows. Runs under ThreadSanitizer in tools/scripts/test.sh step 3 (the ctest name
// contains "Concurrency").

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "format/hash.h"
#include "sstfilter/dynamic_cuckoo.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SSTFILTER_TEST_TSAN 1
#endif
#endif

namespace sstfilter {
namespace {

uint64_t StableHash(uint64_t i) { return Mix64(i * 2 + 1); }
uint64_t ChurnHash(uint64_t i) { return Mix64(i * 2 + 2); }

TEST(DynamicCuckooConcurrencyTest, ReadersNeverMissDuringInsertEraseAndGrowth) {
  DynamicCuckooOptions o;
  o.target_fpr = 0.01;
  o.initial_capacity = 256;  // many growth steps
  std::unique_ptr<DynamicCuckooFilter> f;
  ASSERT_EQ(DynamicCuckooFilter::Create(o, &f), DynamicStatus::kOk);
#if defined(__SANITIZE_THREAD__) || defined(SSTFILTER_TEST_TSAN)
  const uint64_t n = 60000;
#else
  const uint64_t n = 600000;
#endif
  std::atomic<uint64_t> published{0};  // stable keys [0, published) are in
  std::atomic<bool> done{false};
  std::atomic<uint64_t> misses{0}, checks{0};

  auto reader = [&](uint64_t seed) {
    uint64_t x = seed;
    while (!done.load(std::memory_order_acquire)) {
      const uint64_t p = published.load(std::memory_order_acquire);
      if (p == 0) continue;
      // The newest keys (most likely to be mid-eviction) and random old ones.
      for (uint64_t k = 0; k < 16; ++k) {
        x = Mix64(x + k);
        const uint64_t i = k < 8 ? (k < p ? p - 1 - k : 0) : x % p;
        if (!f->ContainsHash(StableHash(i))) misses.fetch_add(1, std::memory_order_relaxed);
        checks.fetch_add(1, std::memory_order_relaxed);
      }
    }
  };
  std::vector<std::thread> readers;
  for (uint64_t t = 0; t < 2; ++t) readers.emplace_back(reader, t + 1);

  for (uint64_t i = 0; i < n; ++i) {
    ASSERT_EQ(f->InsertHash(StableHash(i)), DynamicStatus::kOk);
    published.store(i + 1, std::memory_order_release);
    // Churn: keys inserted and erased a little later, so erases run too.
    ASSERT_EQ(f->InsertHash(ChurnHash(i)), DynamicStatus::kOk);
    if (i >= 100) {
      ASSERT_EQ(f->EraseHash(ChurnHash(i - 100)), DynamicStatus::kOk);
    }
  }
  // The readers have checked at least 1000 keys, however slowly they were
  // scheduled: the test waits for that, not for a set time.
  while (checks.load(std::memory_order_relaxed) < 1000) std::this_thread::yield();
  done.store(true, std::memory_order_release);
  for (auto& t : readers) t.join();
  EXPECT_EQ(misses.load(), 0u) << "of " << checks.load() << " checks";
  EXPECT_EQ(f->Size(), n + 100);
  for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(f->ContainsHash(StableHash(i)));
}


// ReplaceWith, as the key guard's re-presize uses it: a filter rebuilt for
// the same keys takes over again and again while readers query, and no
// reader misses a key both hold.
TEST(DynamicCuckooReplaceTest, ReadersNeverMissAcrossReplaceWith) {
#if defined(__SANITIZE_THREAD__) || defined(SSTFILTER_TEST_TSAN)
  const uint64_t n = 5000;
#else
  const uint64_t n = 50000;
#endif
  constexpr uint64_t kRounds = 20;
  DynamicCuckooOptions o;
  o.initial_capacity = 1024;
  std::unique_ptr<DynamicCuckooFilter> f;
  ASSERT_EQ(DynamicCuckooFilter::Create(o, &f), DynamicStatus::kOk);
  for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(f->InsertHash(StableHash(i)), DynamicStatus::kOk);
  std::atomic<bool> done{false};
  std::atomic<uint64_t> misses{0}, checks{0};
  auto reader = [&](uint64_t seed) {
    uint64_t x = seed;
    while (!done.load(std::memory_order_acquire)) {
      x = Mix64(x);
      if (!f->ContainsHash(StableHash(x % n))) misses.fetch_add(1, std::memory_order_relaxed);
      checks.fetch_add(1, std::memory_order_relaxed);
    }
  };
  std::vector<std::thread> readers;
  for (uint64_t t = 0; t < 2; ++t) readers.emplace_back(reader, t + 1);
  o.initial_capacity = n;  // presized: a smaller filter
  for (uint64_t round = 0; round < kRounds; ++round) {
    std::unique_ptr<DynamicCuckooFilter> fresh;
    ASSERT_EQ(DynamicCuckooFilter::Create(o, &fresh), DynamicStatus::kOk);
    for (uint64_t i = 0; i < n; ++i) {
      ASSERT_EQ(fresh->InsertHash(StableHash(i)), DynamicStatus::kOk);
    }
    // The readers have been querying since the last swap.
    while (checks.load(std::memory_order_relaxed) < (round + 1) * 100) std::this_thread::yield();
    ASSERT_EQ(f->ReplaceWith(std::move(fresh)), DynamicStatus::kOk);
    // The writer goes on in the new filter: churn grows and shrinks it.
    for (uint64_t i = 0; i < 100; ++i) ASSERT_EQ(f->InsertHash(ChurnHash(i)), DynamicStatus::kOk);
    for (uint64_t i = 0; i < 100; ++i) ASSERT_EQ(f->EraseHash(ChurnHash(i)), DynamicStatus::kOk);
  }
  done.store(true, std::memory_order_release);
  for (auto& t : readers) t.join();
  EXPECT_EQ(misses.load(), 0u) << "of " << checks.load() << " checks";
  EXPECT_EQ(f->Size(), n);
  std::string saved;
  f->Save(&saved);
  std::unique_ptr<DynamicCuckooFilter> loaded;
  ASSERT_EQ(DynamicCuckooFilter::Load(saved, &loaded), DynamicStatus::kOk);
  for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(loaded->ContainsHash(StableHash(i)));
}

TEST(DynamicCuckooReplaceTest, NullChangesNothing) {
  std::unique_ptr<DynamicCuckooFilter> a;
  ASSERT_EQ(DynamicCuckooFilter::Create(DynamicCuckooOptions(), &a), DynamicStatus::kOk);
  ASSERT_EQ(a->Insert("kept"), DynamicStatus::kOk);
  EXPECT_EQ(a->ReplaceWith(nullptr), DynamicStatus::kInvalidArgument);
  EXPECT_TRUE(a->Contains("kept"));
  EXPECT_EQ(a->Size(), 1u);
}

}  // namespace
}  // namespace sstfilter
