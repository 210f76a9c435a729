// What every real-database test needs: a temporary directory, and keys
// that are written or sort between written ones.

#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

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

// Sequential-style keys, "key" and 12 digits.
inline std::string KeyAt(uint64_t i) {
  char buf[24];
  snprintf(buf, sizeof(buf), "key%012llu", static_cast<unsigned long long>(i));
  return buf;
}

// A key that sorts inside the written range but was never written.
inline std::string AbsentKeyAt(uint64_t i) { return KeyAt(i) + "x"; }

}  // namespace test
}  // namespace sstfilter
