#include "filters/small_filter.h"

#include <algorithm>

#include "format/bits.h"
#include "format/coding.h"
#include "format/hash.h"

namespace sstfilter {
namespace {

// Arbitrary, fixed by the format (docs/format.md).
constexpr uint64_t kSmallCheckSeed = 0x737374736d616c6cULL;  // "sstsmall"
// Payloads beyond this are never small filters (and P cannot overflow).
constexpr uint64_t kMaxSmallFilterBytes = uint64_t{1} << 32;
constexpr uint64_t kMaxSmallBitsPerKey = 128;
constexpr size_t kShortTrailerSize = 2, kLongTrailerSize = 3;

uint64_t LowMask(unsigned width) {
  return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
}

// The trailer, read as a little-endian integer of its 2 or 3 bytes:
//   bits 0 .. c-1    n - 1             (c = 4 short, 10 long)
//   bits c .. t-2    check             (11 short, 13 long bits)
//   bit  t-1         0 short, 1 long   (t = 16 or 24: the last byte's top bit)
struct TrailerShape {
  size_t bytes;
  unsigned count_bits, check_bits;
};

TrailerShape ShapeOf(size_t trailer_bytes) {
  return trailer_bytes == kShortTrailerSize ? TrailerShape{2, 4, 11} : TrailerShape{3, 10, 13};
}

// XXH3 over the payload, seeded with the trailer's other fields so that
// the check covers them too; its top check_bits.
uint64_t CheckOf(const char* data, size_t size, const TrailerShape& t, uint64_t n_minus_1) {
  const uint64_t seed = kSmallCheckSeed + (static_cast<uint64_t>(t.bytes) << 16) + n_minus_1;
  return XXH3_64bits_withSeed(data, size - t.bytes, seed) >> (64 - t.check_bits);
}

// `width` bits at bit `pos` of [data, data + size), zeros past its end;
// (pos % 8) + width <= 64.
SSTFILTER_ALWAYS_INLINE uint64_t LoadBitsWithin(const char* data, size_t size, uint64_t pos,
                                                unsigned width) {
  const uint64_t byte = pos >> 3;
  if (byte + 8 <= size) return LoadBits(data, pos, width);
  uint64_t word = 0;
  for (uint64_t j = 0; j < 8 && byte + j < size; ++j) {
    word |= static_cast<uint64_t>(static_cast<uint8_t>(data[byte + j])) << (8 * j);
  }
  return (word >> (pos & 7)) & LowMask(width);
}

// The position of the r-th (1-based) set bit of x; 1 <= r <= popcount(x).
inline unsigned SelectBit(uint64_t x, uint64_t r) {
  const uint64_t prefix = ByteCounts(x) * 0x0101010101010101ULL;  // byte i: bytes 0..i
  unsigned byte = 0;
  while (((prefix >> (8 * byte)) & 0xFF) < r) ++byte;
  if (byte > 0) r -= (prefix >> (8 * (byte - 1))) & 0xFF;
  uint64_t bits = (x >> (8 * byte)) & 0xFF;
  while (--r > 0) bits &= bits - 1;
  return 8 * byte + static_cast<unsigned>(__builtin_ctzll(bits));
}

}  // namespace

size_t SmallTrailerSize(size_t num_keys) {
  return num_keys <= kMaxShortTrailerKeys ? kShortTrailerSize : kLongTrailerSize;
}

void SealSmallFilter(char* data, size_t size, size_t num_keys) {
  const TrailerShape t = ShapeOf(SmallTrailerSize(num_keys));
  const uint64_t n1 = (num_keys - 1) & LowMask(t.count_bits);
  const uint64_t sel = t.bytes == kLongTrailerSize ? 1 : 0;
  const uint64_t word = n1 | (CheckOf(data, size, t, n1) << t.count_bits) |
                        (sel << (8 * t.bytes - 1));
  for (size_t i = 0; i < t.bytes; ++i) {
    data[size - t.bytes + i] = static_cast<char>(word >> (8 * i));
  }
}

bool SmallLayoutFor(size_t num_keys, size_t filter_bytes, SmallLayout* layout) {
  if (num_keys == 0 || num_keys > kMaxSmallKeys || filter_bytes > kMaxSmallFilterBytes ||
      filter_bytes <= SmallTrailerSize(num_keys)) {
    return false;
  }
  const uint64_t n = num_keys;
  const uint64_t p = 8 * static_cast<uint64_t>(filter_bytes - SmallTrailerSize(num_keys));
  if (p < n) return false;  // not even k = 0 and one bucket
  // No budget gives a key more (RocksDB's and LevelDB's at 100 bits/key
  // stay under it); bigger bytes are not a small filter, which keeps most
  // damaged large version-1 filters from reading as one.
  if (p > kMaxSmallBitsPerKey * n + 64) return false;
  // N(k) = (P - n(k+1) + 1) 2^k grows with k while P + 1 > n(k + 3).
  uint64_t k = (p + 1 + n - 1) / n;  // ceil((P + 1) / n)
  k = std::min<uint64_t>(k >= 3 ? k - 3 : 0, kMaxSmallLowBits);
  while (n * (k + 1) > p) --k;  // defensive: the rule above keeps it feasible
  const uint64_t cap = k == 0 ? ~uint64_t{0} : (uint64_t{1} << (64 - k)) - 1;
  layout->num_keys = n;
  layout->low_bits = static_cast<unsigned>(k);
  layout->buckets = std::min(p - n * (k + 1) + 1, cap);
  layout->range = layout->buckets << k;
  layout->bitmap_bits = n + layout->buckets - 1;
  layout->payload_bits = p;
  const uint64_t words = (layout->bitmap_bits + 63) / 64;
  layout->sample_words = std::max<uint64_t>(1, (words + SmallLayout::kRankSamples - 1) /
                                                   SmallLayout::kRankSamples);
  layout->num_samples = 0;
  return true;
}

double SmallExpectedFpr(size_t num_keys, size_t filter_bytes) {
  SmallLayout layout;
  if (!SmallLayoutFor(num_keys, filter_bytes, &layout)) return 1;
  return static_cast<double>(num_keys) / static_cast<double>(layout.range);
}

bool ParseSmallFilter(const char* data, size_t size, SmallLayout* layout) {
  if (data == nullptr || size < kShortTrailerSize) return false;
  const bool long_trailer = (static_cast<uint8_t>(data[size - 1]) >> 7) != 0;
  const TrailerShape t = ShapeOf(long_trailer ? kLongTrailerSize : kShortTrailerSize);
  if (size <= t.bytes) return false;
  uint64_t word = 0;
  for (size_t i = 0; i < t.bytes; ++i) {
    word |= static_cast<uint64_t>(static_cast<uint8_t>(data[size - t.bytes + i])) << (8 * i);
  }
  const uint64_t n1 = word & LowMask(t.count_bits);
  const uint64_t check = (word >> t.count_bits) & LowMask(t.check_bits);
  const size_t n = static_cast<size_t>(n1) + 1;
  // Each key count has one trailer size: a long trailer of few keys is not
  // one the builder writes.
  if (SmallTrailerSize(n) != t.bytes || check != CheckOf(data, size, t, n1)) return false;
  if (!SmallLayoutFor(n, size, layout)) return false;
  // The bitmap holds exactly n ones: any single flip in it, and most
  // foreign bytes that got through the check, fail this.
  // Counted by word, with rank samples for the reader on the way.
  uint64_t ones = 0;
  for (uint64_t w = 0, to_sample = 0; 64 * w < layout->bitmap_bits; ++w, --to_sample) {
    if (to_sample == 0) {  // w is a multiple of sample_words
      layout->zeros_before[layout->num_samples++] = static_cast<uint32_t>(64 * w - ones);
      to_sample = layout->sample_words;
    }
    const auto width = static_cast<unsigned>(std::min<uint64_t>(64, layout->bitmap_bits - 64 * w));
    ones += PopCount(LoadBitsWithin(data, size, 64 * w, width));
  }
  return ones == n;
}

bool SmallReader::MayMatch(uint64_t hash) const {
  const SmallLayout& l = layout_;
  const unsigned k = l.low_bits;
  const uint64_t v = FastRange64(hash, l.range);
  const uint64_t high = v >> k, low = v & LowMask(k);
  // Bucket `high` starts after the high-th zero of the bitmap.
  uint64_t pos = 0;
  if (high > 0) {
    // Start at the last rank sample with fewer than `high` zeros before it.
    unsigned j = l.num_samples;
    while (j > 1 && l.zeros_before[j - 1] >= high) --j;
    uint64_t remaining = high, start = 0;
    if (j > 0) {
      remaining -= l.zeros_before[j - 1];
      start = 64 * (j - 1) * l.sample_words;
    }
    bool found = false;
    for (uint64_t w = start; w < l.bitmap_bits; w += 64) {
      const auto width = static_cast<unsigned>(std::min<uint64_t>(64, l.bitmap_bits - w));
      uint64_t zeros = ~LoadBitsWithin(data_, size_, w, width) & LowMask(width);
      const uint64_t count = PopCount(zeros);
      if (count < remaining) {
        remaining -= count;
        continue;
      }
      pos = w + SelectBit(zeros, remaining) + 1;
      found = true;
      break;
    }
    if (!found) return true;  // fewer zeros than buckets: damaged
  }
  // Its entries: the run of ones from there; entry i's low bits are the
  // i-th k-bit field after the bitmap, ascending within a bucket.
  for (uint64_t i = pos - high; pos < l.bitmap_bits && LoadBitsWithin(data_, size_, pos, 1);
       ++pos, ++i) {
    if (i >= l.num_keys) return true;  // more ones than keys: damaged
    const uint64_t entry = LoadBitsWithin(data_, size_, l.bitmap_bits + i * k, k);
    if (entry >= low) return entry == low;
  }
  return false;
}

}  // namespace sstfilter
