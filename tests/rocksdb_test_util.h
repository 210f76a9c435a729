// Shared pieces of the RocksDB integration tests: a temporary directory
// and a DB opened with an sstfilter policy and statistics.

#pragma once

#include <gtest/gtest.h>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace sstfilter {
namespace test {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/sstfilter-XXXXXX";
    path_ = mkdtemp(&tmpl[0]) ? tmpl : "";
    EXPECT_FALSE(path_.empty());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::string KeyAt(uint64_t i) {
  char buf[24];
  snprintf(buf, sizeof(buf), "key%012llu", static_cast<unsigned long long>(i));
  return buf;
}

// A key that sorts inside the written range but was never written.
inline std::string AbsentKeyAt(uint64_t i) { return KeyAt(i) + "x"; }

inline uint64_t Ticker(const rocksdb::Options& options, rocksdb::Tickers t) {
  return options.statistics->getTickerCount(t);
}

}  // namespace test
}  // namespace sstfilter
