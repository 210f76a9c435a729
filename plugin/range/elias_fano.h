// Elias-Fano: a sorted sequence of n integers in [0, u) in
// n * (2 + log2(u / n)) bits, with "is any element in [a, b]?" answered by
// one select on the high bits and a short scan.
//
// Each value v splits into its low l = floor(log2(u / n)) bits, stored
// packed, and its high part v >> l, stored in unary: element i sets bit
// (v >> l) + i of the high bits, so bucket h's elements are the ones
// between the h-th and (h + 1)-th zero. A sample of every kSelectSample-th
// zero's position bounds each select to a few words.
//
// Bytes (little-endian, every bit array in LoadBits order, each followed by
// 8 bytes of padding so that any field can be read with one 8-byte load):
//   low bits    ceil(n * l / 8) + 8 bytes
//   high bits   ceil(high_bits / 8) + 8 bytes, high_bits = n + (u >> l) + 1
//   samples     Fixed64 each: position of zero number k * kSelectSample
// The reader is a view: it owns nothing and checks only that the sizes its
// header promises fit the bytes it is given.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sstfilter {

struct EliasFanoShape {
  uint64_t n = 0;          // elements
  uint64_t universe = 1;   // every element < universe
  uint32_t low_bits = 0;   // l
  uint64_t high_bits = 0;  // n + (universe >> l) + 1
  uint64_t samples = 0;    // zeros / kSelectSample + 1

  static constexpr uint64_t kSelectSample = 512;
  static EliasFanoShape For(uint64_t n, uint64_t universe);
  uint64_t LowBytes() const { return (n * low_bits + 7) / 8 + 8; }
  uint64_t HighBytes() const { return (high_bits + 7) / 8 + 8; }
  uint64_t Bytes() const { return LowBytes() + HighBytes() + 8 * samples; }
};

// Appends the encoding of `sorted` (non-decreasing, each < universe) to *out.
void EncodeEliasFano(const std::vector<uint64_t>& sorted, const EliasFanoShape& shape,
                     std::string* out);

class EliasFanoView {
 public:
  // False unless `bytes` holds exactly shape.Bytes() bytes.
  bool Init(const EliasFanoShape& shape, std::string_view bytes);
  // Whether some element lies in [a, b] (inclusive; any a, b).
  bool AnyIn(uint64_t a, uint64_t b) const;

 private:
  uint64_t SelectZero(uint64_t k) const;  // position of zero number k (from 0)
  bool HighBit(uint64_t pos) const;
  uint64_t Low(uint64_t i) const;

  EliasFanoShape shape_;
  const char* low_ = nullptr;
  const char* high_ = nullptr;
  const char* samples_ = nullptr;
};

}  // namespace sstfilter
