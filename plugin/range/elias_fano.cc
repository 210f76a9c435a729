#include "range/elias_fano.h"

#include <algorithm>

#include "format/coding.h"

namespace sstfilter {

EliasFanoShape EliasFanoShape::For(uint64_t n, uint64_t universe) {
  EliasFanoShape s;
  s.n = n;
  s.universe = universe == 0 ? 1 : universe;
  while (n > 0 && s.low_bits < 63 && (s.universe >> (s.low_bits + 1)) >= n) ++s.low_bits;
  s.high_bits = n + (s.universe >> s.low_bits) + 1;
  const uint64_t zeros = s.high_bits - n;
  s.samples = zeros / kSelectSample + 1;
  return s;
}

void EncodeEliasFano(const std::vector<uint64_t>& sorted, const EliasFanoShape& shape,
                     std::string* out) {
  const size_t start = out->size();
  out->resize(start + shape.Bytes(), '\0');
  char* low = &(*out)[start];
  char* high = low + shape.LowBytes();
  char* samples = high + shape.HighBytes();
  BitWriter lows(low);
  for (uint64_t v : sorted) lows.Put(v, shape.low_bits);
  lows.Flush();
  for (uint64_t i = 0; i < sorted.size(); ++i) {
    const uint64_t pos = (sorted[i] >> shape.low_bits) + i;
    high[pos >> 3] = static_cast<char>(high[pos >> 3] | (1 << (pos & 7)));
  }
  // Zero number k * kSelectSample, for every k.
  uint64_t zeros = 0;
  for (uint64_t pos = 0; pos < shape.high_bits; ++pos) {
    if ((high[pos >> 3] >> (pos & 7)) & 1) continue;
    if (zeros % EliasFanoShape::kSelectSample == 0) {
      EncodeFixed64(samples + 8 * (zeros / EliasFanoShape::kSelectSample), pos);
    }
    ++zeros;
  }
}

bool EliasFanoView::Init(const EliasFanoShape& shape, std::string_view bytes) {
  if (bytes.size() != shape.Bytes()) return false;
  shape_ = shape;
  low_ = bytes.data();
  high_ = low_ + shape.LowBytes();
  samples_ = high_ + shape.HighBytes();
  return true;
}

bool EliasFanoView::HighBit(uint64_t pos) const { return (high_[pos >> 3] >> (pos & 7)) & 1; }

uint64_t EliasFanoView::Low(uint64_t i) const {
  return shape_.low_bits == 0 ? 0 : LoadBits(low_, i * shape_.low_bits, shape_.low_bits);
}

uint64_t EliasFanoView::SelectZero(uint64_t k) const {
  uint64_t pos = DecodeFixed64(samples_ + 8 * (k / EliasFanoShape::kSelectSample));
  uint64_t left = k % EliasFanoShape::kSelectSample;  // zeros to pass after `pos`
  if (left == 0) return pos;
  ++pos;
  for (;;) {
    // The zeros among the next (up to) 56 bits: one load from any bit.
    const unsigned width = static_cast<unsigned>(std::min<uint64_t>(56, shape_.high_bits - pos));
    const uint64_t zeros = ~LoadBits(high_, pos, width) & ((uint64_t{1} << width) - 1);
    const auto count = static_cast<uint64_t>(__builtin_popcountll(zeros));
    if (count >= left) {
      uint64_t rest = zeros;
      for (; left > 1; --left) rest &= rest - 1;  // drop the lowest zeros
      return pos + static_cast<uint64_t>(__builtin_ctzll(rest));
    }
    left -= count;
    pos += width;
  }
}

bool EliasFanoView::AnyIn(uint64_t a, uint64_t b) const {
  if (shape_.n == 0 || a > b || a >= shape_.universe) return false;
  const unsigned l = shape_.low_bits;
  const uint64_t bucket = a >> l;
  // Bucket h's elements start right after zero number h - 1.
  uint64_t pos = bucket == 0 ? 0 : SelectZero(bucket - 1) + 1;
  uint64_t index = pos - bucket;  // ones before pos
  for (uint64_t h = bucket; pos < shape_.high_bits; ++pos) {
    if (!HighBit(pos)) {
      if (++h << l > b) return false;  // every later element is past b
      continue;
    }
    const uint64_t v = (h << l) | Low(index++);
    if (v >= a) return v <= b;
  }
  return false;
}

}  // namespace sstfilter
