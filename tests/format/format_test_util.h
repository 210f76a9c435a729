// Shared pieces of the format tests.

#pragma once

#include <cstdio>
#include <string>

namespace sstfilter {
namespace test {

// Lowercase hex of `bytes`, two digits a byte, for golden-byte comparisons.
inline std::string Hex(const std::string& bytes) {
  std::string out;
  char buf[3];
  for (unsigned char c : bytes) {
    std::snprintf(buf, sizeof(buf), "%02x", c);
    out += buf;
  }
  return out;
}

}  // namespace test
}  // namespace sstfilter
