// The LevelDB policies without a database: factories and their errors, no
// false negatives from 0 to 200 keys, the memory budget against LevelDB's
// own Bloom filter, "may match" for any doubtful bytes, thread safety.

#include <leveldb/slice.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>

#include "leveldb_adapter/leveldb_policy.h"
#include "leveldb_test_util.h"

namespace sstfilter {
namespace {

using test::Keys;
using test::MakeFilter;
using test::PolicyOrDie;

uint64_t NextRandom(uint64_t* state) {  // SplitMix64: fixed, portable
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

FilterType TypeOf(const std::string& name) {
  FilterType type = FilterType::kBloom;
  EXPECT_TRUE(FilterTypeFromName(name, &type)) << name;
  return type;
}

TEST(LevelDBPolicyFactory, MakesEveryTypeWithOneFixedName) {
  // The name of format version 1, kept by every later format version
  // (leveldb_policy.h; leveldb_compat_test reads tables written under it).
  const std::string name = "sstfilter.v1";
  EXPECT_EQ(NewLevelDBBloomFilterPolicy(10)->Name(), name);
  EXPECT_EQ(NewLevelDBCuckooFilterPolicy(10)->Name(), name);
  for (const std::string& type : test::LevelDBPolicyTypes()) {
    for (const char* prefix : {"", "sstfilter."}) {
      std::unique_ptr<const leveldb::FilterPolicy> policy;
      const double bits = MinBitsPerKey(TypeOf(type));
      EXPECT_TRUE(NewLevelDBFilterPolicy(std::string(prefix) + type, bits, &policy).ok())
          << type;
      ASSERT_NE(policy, nullptr);
      EXPECT_EQ(policy->Name(), name);
      const auto* ours = dynamic_cast<const LevelDBFilterPolicy*>(policy.get());
      ASSERT_NE(ours, nullptr);
      EXPECT_EQ(FilterTypeName(ours->spec().type), type);
    }
  }
}

TEST(LevelDBPolicyFactory, RejectsBadBitsPerKey) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {nan, inf, -inf, 0.0, 0.99, 100.5, -10.0}) {
    EXPECT_THROW(NewLevelDBBloomFilterPolicy(bad), std::invalid_argument) << bad;
    EXPECT_THROW(NewLevelDBCuckooFilterPolicy(bad), std::invalid_argument) << bad;
  }
  EXPECT_NO_THROW(NewLevelDBBloomFilterPolicy(1));
  EXPECT_NO_THROW(NewLevelDBBloomFilterPolicy(100));
  EXPECT_THROW(NewLevelDBCuckooFilterPolicy(3.9), std::invalid_argument);
  EXPECT_NO_THROW(NewLevelDBCuckooFilterPolicy(4));
}

TEST(LevelDBPolicyFactory, StatusOverloadExplainsAndLeavesPolicyAlone) {
  auto kept = NewLevelDBBloomFilterPolicy(10);
  const leveldb::FilterPolicy* before = kept.get();
  leveldb::Status s = NewLevelDBFilterPolicy("xor", 10, &kept);
  EXPECT_TRUE(s.IsInvalidArgument());
  // Every registered type, the newest included.
  EXPECT_NE(s.ToString().find("unknown sstfilter LevelDB filter type 'xor'; known: bloom, "
                              "cuckoo, cuckoo_plain, cuckoo_semisorted, fuse, burr"),
            std::string::npos)
      << s.ToString();
  s = NewLevelDBFilterPolicy("cuckoo", 2, &kept);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("sstfilter.cuckoo: bits_per_key 2 is out of range; it must be a "
                              "number from 4 to 100"),
            std::string::npos)
      << s.ToString();
  EXPECT_EQ(kept.get(), before);
}

class LevelDBPolicyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LevelDBPolicyTest, EveryKeyMatchesFromZeroTo200Keys) {
  for (double bits : {MinBitsPerKey(TypeOf(GetParam())), 7.5, 10.0, 16.0, 40.0}) {
    auto policy = PolicyOrDie(GetParam(), bits);
    for (bool hashed : {false, true}) {
      for (size_t n = 0; n <= 200; ++n) {
        std::vector<std::string> keys = Keys(n, 1000 * n, hashed);
        // Repeats, as LevelDB passes a user key once per live version.
        if (n % 7 == 3) keys.insert(keys.begin() + n / 2, keys[n / 2]);
        const std::string filter = MakeFilter(*policy, keys);
        for (const std::string& k : keys) {
          ASSERT_TRUE(policy->KeyMayMatch(k, filter))
              << "bits " << bits << " n " << n << " key " << k;
        }
      }
    }
  }
}

TEST_P(LevelDBPolicyTest, AppendsAndLeavesEarlierBytesAlone) {
  auto policy = PolicyOrDie(GetParam(), 10);
  const std::vector<std::string> a = Keys(40, 0, true), b = Keys(300, 5000, true);
  std::vector<leveldb::Slice> sa(a.begin(), a.end()), sb(b.begin(), b.end());
  std::string dst = "earlier bytes";
  policy->CreateFilter(sa.data(), static_cast<int>(sa.size()), &dst);
  const size_t mid = dst.size();
  policy->CreateFilter(sb.data(), static_cast<int>(sb.size()), &dst);
  EXPECT_EQ(dst.substr(0, 13), "earlier bytes");
  EXPECT_EQ(dst.substr(13, mid - 13), MakeFilter(*policy, a));
  EXPECT_EQ(dst.substr(mid), MakeFilter(*policy, b));
}

TEST_P(LevelDBPolicyTest, SameKeysGiveSameBytesOnEveryThread) {
  auto policy = PolicyOrDie(GetParam(), 10);
  std::vector<std::string> expected;
  for (size_t n = 0; n < 300; ++n) expected.push_back(MakeFilter(*policy, Keys(n, n, true)));
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (size_t n = 0; n < 300; ++n) {
        mismatches[t] += MakeFilter(*policy, Keys(n, n, true)) != expected[n];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

// The memory promise: never more bytes than LevelDB's NewBloomFilterPolicy
// with the same bits/key writes for the same keys (whenever the budget
// leaves our builders at least their minimum bits/key; leveldb.h).
TEST_P(LevelDBPolicyTest, NeverLargerThanLevelDBsOwnBloomFilter) {
  for (int bits : {8, 10, 12, 16, 20, 30}) {
    if (bits < MinBitsPerKey(TypeOf(GetParam()))) continue;
    auto ours = PolicyOrDie(GetParam(), bits);
    std::unique_ptr<const leveldb::FilterPolicy> theirs(leveldb::NewBloomFilterPolicy(bits));
    for (size_t n = 0; n <= 3000; n += (n < 300 ? 1 : 37)) {
      const std::vector<std::string> keys = Keys(n, 7 * n, true);
      const size_t their_size = MakeFilter(*theirs, keys).size();
      ASSERT_EQ(LevelDBBloomFilterBytes(n, bits), their_size) << "n " << n;
      ASSERT_LE(MakeFilter(*ours, keys).size(), their_size) << "bits " << bits << " n " << n;
    }
  }
}

TEST_P(LevelDBPolicyTest, DoubtfulBytesMayMatchEverything) {
  auto policy = PolicyOrDie(GetParam(), 10);
  const std::vector<std::string> absent = Keys(20, 1u << 30, true);
  auto all_match = [&](const std::string& bytes) {
    for (const std::string& k : absent) {
      if (!policy->KeyMayMatch(k, bytes)) return false;
    }
    return true;
  };
  EXPECT_TRUE(all_match(""));
  EXPECT_TRUE(policy->KeyMayMatch("", leveldb::Slice()));
  // Foreign bytes read as a small filter only if its 11- or 13-bit check
  // matches and the bitmap holds exactly n ones (docs/format.md): rare,
  // and none of these do.
  uint64_t state = 42;
  for (size_t len = 1; len <= 300; ++len) {
    std::string noise;
    for (size_t i = 0; i < len; ++i) noise.push_back(static_cast<char>(NextRandom(&state)));
    EXPECT_TRUE(all_match(noise)) << "random bytes, length " << len;
  }
  // LevelDB's own Bloom bytes, and every truncation and bit flip of ours.
  const std::vector<std::string> keys = Keys(50, 0, true);
  std::unique_ptr<const leveldb::FilterPolicy> leveldb_bloom(leveldb::NewBloomFilterPolicy(10));
  EXPECT_TRUE(all_match(MakeFilter(*leveldb_bloom, keys)));
  const std::string good = MakeFilter(*policy, keys);
  ASSERT_FALSE(all_match(good));  // the intact filter does answer "no"
  for (size_t len = 0; len < good.size(); ++len) {
    EXPECT_TRUE(all_match(good.substr(0, len))) << "truncated to " << len;
    EXPECT_TRUE(all_match(good.substr(good.size() - len))) << "suffix of " << len;
  }
  for (size_t i = 0; i < good.size() * 8; ++i) {
    std::string damaged = good;
    damaged[i / 8] = static_cast<char>(damaged[i / 8] ^ (1 << (i % 8)));
    EXPECT_TRUE(all_match(damaged)) << "bit " << i << " flipped";
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, LevelDBPolicyTest,
                         ::testing::ValuesIn(test::LevelDBPolicyTypes()));

}  // namespace
}  // namespace sstfilter
