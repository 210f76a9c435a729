// DynamicCuckooFilter against an exact model (a multiset of keys): random
// sequences of Insert / Erase / Contains, with duplicates up to and past
// the copy limit, erases of absent keys (checked mode) and growth through
// many steps. Zero false negatives is asserted on every Contains of a key
// the model holds.
//
// Scale: in an optimised build without sanitizers, 3 small-key-space
// shards of 2.8 * 10^7 operations (fast: the filter stays small) and 7
// growing shards of 2.5 * 10^6 (slower: up to ~10^6 keys, many members):
// 1.015 * 10^8 operations in the suite, each shard under ~15 s. Under sanitizers or
// a debug build, 1/20 of it. SSTFILTER_DYNAMIC_OPS overrides the count of
// every shard.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/hash.h"
#include "sstfilter/dynamic_cuckoo.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SSTFILTER_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SSTFILTER_TEST_SANITIZED 1
#endif

namespace sstfilter {
namespace {

constexpr int kShards = 10;

uint64_t OpsPerShard(int shard) {
  if (const char* env = std::getenv("SSTFILTER_DYNAMIC_OPS")) return std::strtoull(env, nullptr, 10);
  const uint64_t ops = shard < 3 ? 28000000 : 2500000;
#if defined(SSTFILTER_TEST_SANITIZED) || !defined(__OPTIMIZE__)
  return ops / 20;
#else
  return ops;
#endif
}

class DynamicCuckooPropertyTest : public ::testing::TestWithParam<int> {};

TEST_P(DynamicCuckooPropertyTest, MatchesMultisetModel) {
  const int shard = GetParam();
  uint64_t rng = Mix64(0x5eed + shard);
  auto next = [&]() { return rng = Mix64(rng + 0x9e3779b97f4a7c15ULL); };
  DynamicCuckooOptions o;
  // Shards differ in target, start size and key space: small key spaces
  // give many duplicates, large ones long growth.
  const double fprs[] = {0.05, 0.01, 0.001, 0.0001};
  o.target_fpr = fprs[shard % 4];
  o.initial_capacity = 64u << (shard % 5);
  o.checked = shard % 2 == 0;
  std::unique_ptr<DynamicCuckooFilter> f;
  ASSERT_EQ(DynamicCuckooFilter::Create(o, &f), DynamicStatus::kOk);
  const uint64_t ops = OpsPerShard(shard);
  const uint64_t key_space = shard < 3 ? 50 + 1000 * shard : ops / (1 + shard % 3);
  std::unordered_map<uint64_t, uint32_t> model;
  std::vector<uint64_t> present;  // keys with count > 0 (may hold stale ids)
  uint64_t size = 0, too_many = 0, false_negatives = 0;
  for (uint64_t op = 0; op < ops; ++op) {
    const uint64_t r = next();
    const uint64_t key = Mix64(r % key_space + (static_cast<uint64_t>(shard) << 40));
    // Phases: grow (insert-heavy), then churn, then shrink (erase-heavy).
    const uint64_t phase = op * 3 / ops;
    const unsigned insert_pct = phase == 0 ? 70 : phase == 1 ? 50 : 30;
    const unsigned choice = static_cast<unsigned>((r >> 40) % 100);
    if (choice < insert_pct) {
      uint32_t& c = model[key];
      const uint32_t before = c;
      const DynamicStatus s = f->InsertHash(key);
      // At the limit an Insert must be refused (below it, rarely, another
      // key's equal fingerprint in the pair may count too).
      if (before >= kDynamicCuckooMaxCopies) {
        ASSERT_EQ(s, DynamicStatus::kTooManyCopies);
      }
      if (s == DynamicStatus::kOk) {
        if (c++ == 0) present.push_back(key);
        ++size;
      } else {
        ASSERT_EQ(s, DynamicStatus::kTooManyCopies) << DynamicStatusName(s);
        ++too_many;
        if (c == 0) model.erase(key);
      }
    } else if (choice < insert_pct + 25 && !present.empty()) {
      // Erase a key the model holds.
      const size_t idx = (r >> 8) % present.size();
      const uint64_t k = present[idx];
      auto it = model.find(k);
      if (it == model.end()) {  // stale id: drop it
        present[idx] = present.back();
        present.pop_back();
        continue;
      }
      ASSERT_EQ(f->EraseHash(k), DynamicStatus::kOk);
      --size;
      if (--it->second == 0) {
        model.erase(it);
        present[idx] = present.back();
        present.pop_back();
      }
    } else if (o.checked && choice >= 97) {
      // Erase of a key never inserted: checked mode refuses it.
      const uint64_t absent = Mix64(next() | (1ULL << 63));
      if (model.count(absent) == 0) {
        ASSERT_EQ(f->EraseHash(absent), DynamicStatus::kNotFound);
      }
    } else if (!present.empty()) {
      const uint64_t k = present[(r >> 8) % present.size()];
      if (model.count(k) && !f->ContainsHash(k)) {
        ++false_negatives;
      }
    }
    ASSERT_EQ(false_negatives, 0u) << "op " << op;
  }
  EXPECT_EQ(f->Size(), size);
  // Every key the model holds matches at the end, also after a round trip.
  std::string bytes;
  f->Save(&bytes);
  std::unique_ptr<DynamicCuckooFilter> g;
  ASSERT_EQ(DynamicCuckooFilter::Load(bytes, &g), DynamicStatus::kOk);
  for (const auto& e : model) {
    ASSERT_TRUE(f->ContainsHash(e.first));
    ASSERT_TRUE(g->ContainsHash(e.first));
  }
  // Small key spaces must have hit the copy limit.
  if (shard < 3) {
    EXPECT_GT(too_many, 0u);
  }
  std::printf("shard %d: %llu ops, %zu distinct keys held, %llu kTooManyCopies, %zu bytes\n",
              shard, static_cast<unsigned long long>(ops), model.size(),
              static_cast<unsigned long long>(too_many), f->MemoryBytes());
}

INSTANTIATE_TEST_SUITE_P(Shards, DynamicCuckooPropertyTest, ::testing::Range(0, kShards));

}  // namespace
}  // namespace sstfilter
