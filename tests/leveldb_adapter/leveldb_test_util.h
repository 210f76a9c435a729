// Shared pieces of the LevelDB adapter tests: keys, filters, a policy by
// type name, and a DB opened with every block read counted (temporary
// directory and keys: db_test_util.h).

#pragma once

#include "util/db_test_util.h"

#include <gtest/gtest.h>
#include <leveldb/cache.h>
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>
#include <sstfilter/leveldb.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "util/read_counting_env.h"

namespace sstfilter {
namespace test {

// Random-looking keys (SplitMix64 of i), distinct for distinct i.
inline std::string LevelDBHashedKeyAt(uint64_t i) {
  uint64_t z = i * 0x9e3779b97f4a7c15ULL + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  char buf[24];
  snprintf(buf, sizeof(buf), "h%016llx", static_cast<unsigned long long>(z));
  return buf;
}

// n keys from key number `first`, sorted as LevelDB passes them.
inline std::vector<std::string> Keys(size_t n, size_t first, bool hashed) {
  std::vector<std::string> keys;
  for (size_t i = first; i < first + n; ++i) {
    keys.push_back(hashed ? LevelDBHashedKeyAt(i) : KeyAt(i));
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

// The filter `policy` appends for `keys` to an empty string.
inline std::string MakeFilter(const leveldb::FilterPolicy& policy,
                              const std::vector<std::string>& keys) {
  std::vector<leveldb::Slice> slices(keys.begin(), keys.end());
  std::string filter;
  policy.CreateFilter(slices.data(), static_cast<int>(slices.size()), &filter);
  return filter;
}

inline std::unique_ptr<const leveldb::FilterPolicy> PolicyOrDie(
    const std::string& type, double bits_per_key) {
  std::unique_ptr<const leveldb::FilterPolicy> policy;
  const leveldb::Status s = NewLevelDBFilterPolicy(type, bits_per_key, &policy);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return policy;
}

// The sstfilter types a LevelDB policy can be made of.
inline const std::vector<std::string>& LevelDBPolicyTypes() {
  static const std::vector<std::string> types = {"bloom", "cuckoo", "cuckoo_plain",
                                                 "cuckoo_semisorted"};
  return types;
}

// Opens LevelDB databases through a counting Env with no block cache
// (capacity 0), so every data block a Get needs is one counted file read.
// Table handles, with their index and filter, stay open in LevelDB's table
// cache, as in production.
class CountingOpener {
 public:
  // Opens the DB at `dir` with `policy` (may be null; must outlive the DB),
  // creating it if missing. Null, with a test failure, if it cannot.
  std::unique_ptr<leveldb::DB> Open(const std::string& dir,
                                    const leveldb::FilterPolicy* policy) {
    leveldb::Options options;
    options.create_if_missing = true;
    options.env = &env_;
    options.block_cache = no_cache_.get();
    options.filter_policy = policy;
    leveldb::DB* db = nullptr;
    const leveldb::Status s = leveldb::DB::Open(options, dir, &db);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return std::unique_ptr<leveldb::DB>(db);
  }

  void ResetReads() { env_.ResetReads(); }
  uint64_t reads() const { return env_.reads(); }

 private:
  ReadCountingEnv env_;
  std::unique_ptr<leveldb::Cache> no_cache_{leveldb::NewLRUCache(0)};
};

}  // namespace test
}  // namespace sstfilter
