// Shared pieces of the LevelDB adapter tests: a temporary directory, keys,
// filters, and a policy by type name.

#pragma once

#include <gtest/gtest.h>
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

namespace sstfilter {
namespace test {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents.
class LevelDBTempDir {
 public:
  LevelDBTempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/sstfilter-leveldb-XXXXXX";
    path_ = mkdtemp(&tmpl[0]) ? tmpl : "";
    EXPECT_FALSE(path_.empty());
  }
  ~LevelDBTempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  LevelDBTempDir(const LevelDBTempDir&) = delete;
  LevelDBTempDir& operator=(const LevelDBTempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Sequential-style keys, as most LevelDB users write them.
inline std::string LevelDBKeyAt(uint64_t i) {
  char buf[24];
  snprintf(buf, sizeof(buf), "key%012llu", static_cast<unsigned long long>(i));
  return buf;
}

// A key that sorts between written keys but was never written.
inline std::string LevelDBAbsentKeyAt(uint64_t i) { return LevelDBKeyAt(i) + "x"; }

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
    keys.push_back(hashed ? LevelDBHashedKeyAt(i) : LevelDBKeyAt(i));
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

}  // namespace test
}  // namespace sstfilter
