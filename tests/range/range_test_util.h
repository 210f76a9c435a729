// Keys of the three shapes the range filter is measured on, and ranges of a
// given length in each shape's own numbering.

#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "filters/test_util.h"  // SplitMix

namespace sstfilter {
namespace test {

enum class Shape { kBigEndian64, kUserDecimal, kTablePrefixed };

inline const char* ShapeName(Shape s) {
  switch (s) {
    case Shape::kBigEndian64: return "8-byte big-endian";
    case Shape::kUserDecimal: return "user + 12 digits";
    case Shape::kTablePrefixed: return "4-byte table id + 8-byte id";
  }
  return "?";
}

inline void PutBigEndian(uint64_t v, int bytes, std::string* out) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>(v >> (8 * i)));
}

// Ids are numbers in the shape's own numbering; Key(id) is monotone in id.
// kTablePrefixed spreads ids over 4 table ids (id % 4) and 2^62 ids each.
inline std::string Key(Shape shape, uint64_t id) {
  std::string k;
  switch (shape) {
    case Shape::kBigEndian64:
      PutBigEndian(id, 8, &k);
      break;
    case Shape::kUserDecimal: {
      char digits[16];
      std::snprintf(digits, sizeof(digits), "%012llu",
                    static_cast<unsigned long long>(id % 1000000000000ULL));
      k = std::string("user") + digits;
      break;
    }
    case Shape::kTablePrefixed:
      PutBigEndian(7 + (id >> 62), 4, &k);
      PutBigEndian(id & ((uint64_t{1} << 62) - 1), 8, &k);
      break;
  }
  return k;
}

// The largest id the shape numbers.
inline uint64_t MaxId(Shape shape) {
  return shape == Shape::kUserDecimal ? 999999999999ULL : ~uint64_t{0};
}

}  // namespace test
}  // namespace sstfilter
