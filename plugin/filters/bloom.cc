#include "filters/bloom.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "format/hash.h"
#include "format/trailer.h"

namespace sstfilter {
namespace {

constexpr uint32_t kLineBytes = 64;
constexpr uint32_t kLineBits = kLineBytes * 8;
constexpr int kMaxProbes = 30;
// A single line's bit index must fit FastRange32.
constexpr uint64_t kMaxSingleLineBytes = (uint64_t{1} << 29) - 1;

// The layout rule shared by builder and reader: whole lines if the payload
// is a positive multiple of 64 bytes, else one line of all its bits.
bool IsLines(size_t payload_size) {
  return payload_size >= kLineBytes && payload_size % kLineBytes == 0;
}

}  // namespace

double BloomExpectedFpr(double bits_per_key, int probes) {
  // The sums below cast bounds derived from it to int: keep it finite and
  // positive whatever the caller passes.
  bits_per_key = ClampBitsPerKey(bits_per_key, kMinBitsPerKey, kMaxBitsPerKey);
  // Keys per line ~ Poisson(lambda); a line holding j keys has a fraction
  // 1 - (1 - 1/512)^(k j) of its bits set. Sum over j within 12 standard
  // deviations of the mean. (Logs of factorials are summed by hand:
  // std::lgamma writes the global signgam, a data race across threads.)
  const double lambda = kLineBits / bits_per_key;
  const double k = probes;
  const double spread = 12 * std::sqrt(lambda) + 20;
  const int lo = static_cast<int>(std::max(0.0, lambda - spread));
  const int hi = static_cast<int>(lambda + spread);
  double log_fact = 0;  // log(j!)
  for (int j = 2; j < lo; ++j) log_fact += std::log(static_cast<double>(j));
  const double miss = std::log1p(-1.0 / kLineBits);
  double fpr = 0;
  for (int j = lo; j <= hi; ++j) {
    if (j >= 2) log_fact += std::log(static_cast<double>(j));
    const double log_p = -lambda + j * std::log(lambda) - log_fact;
    const double set = 1.0 - std::exp(miss * k * j);
    fpr += std::exp(log_p + k * std::log(set > 0 ? set : 1e-300));
  }
  return fpr;
}

int BloomProbes(double bits_per_key) {
  // Out of range as the nearest bound, NaN as the lowest: the cast to int
  // below is undefined for NaN, the infinities and huge values.
  bits_per_key = ClampBitsPerKey(bits_per_key, kMinBitsPerKey, kMaxBitsPerKey);
  // Every plan asks (about 20 us to compute), and LevelDB's budgets give
  // filters bits/key in steps of 1/16 (1,585 values): remembered per
  // thread, forgotten wholesale should a caller ask for many more.
  thread_local std::unordered_map<double, int> known;
  const auto it = known.find(bits_per_key);
  if (it != known.end()) return it->second;
  if (known.size() >= 4096) known.clear();
  // The FPR is unimodal in k: walk from the textbook (m/n) ln 2.
  int k = std::clamp(static_cast<int>(bits_per_key * 0.6931), 1, kMaxProbes);
  double fpr = BloomExpectedFpr(bits_per_key, k);
  for (int step : {+1, -1}) {
    while (k + step >= 1 && k + step <= kMaxProbes) {
      const double next = BloomExpectedFpr(bits_per_key, k + step);
      if (next >= fpr) break;
      k += step;
      fpr = next;
    }
  }
  // Near the optimum the FPR is flat; fewer probes build and answer
  // positives faster. Take the fewest within 1% of the best.
  while (k > 1 && BloomExpectedFpr(bits_per_key, k - 1) <= fpr * 1.01) --k;
  known.emplace(bits_per_key, k);
  return k;
}

BloomShape BloomShapeFor(size_t num_keys, double bits_per_key, BloomSizing sizing) {
  bits_per_key = ClampBitsPerKey(bits_per_key, kMinBitsPerKey, kMaxBitsPerKey);
  BloomShape shape;
  shape.probes = BloomProbes(bits_per_key);
  if (num_keys == 0) return shape;
  const double bytes = std::ceil(num_keys * bits_per_key / 8);
  if (bytes < kLineBytes || (sizing == BloomSizing::kExactBytes && bytes <= kMaxSingleLineBytes)) {
    shape.payload_bytes = static_cast<size_t>(bytes);
  } else {
    shape.payload_bytes = static_cast<size_t>(std::ceil(bytes / kLineBytes)) * kLineBytes;
  }
  return shape;
}

double BloomShapeFpr(const BloomShape& shape, size_t num_keys) {
  if (num_keys == 0) return 0;
  const double n = static_cast<double>(num_keys);
  const double bits = 8.0 * static_cast<double>(shape.payload_bytes);
  if (IsLines(shape.payload_bytes)) return BloomExpectedFpr(bits / n, shape.probes);
  // One line of all its bits: an ordinary Bloom filter.
  return std::pow(1 - std::pow(1 - 1 / bits, shape.probes * n), shape.probes);
}

void AppendBloomFilter(const BloomShape& shape, const std::vector<uint64_t>& hashes,
                       std::string* dst) {
  const size_t start = dst->size();
  const size_t payload_size = shape.payload_bytes;
  const int probes = shape.probes;
  dst->append(payload_size, '\0');
  if (payload_size > 0) {
    char* payload = &(*dst)[start];
    const bool lines = IsLines(payload_size);
    const uint64_t num_lines = lines ? payload_size / kLineBytes : 1;
    const uint32_t line_bits =
        lines ? kLineBits : static_cast<uint32_t>(payload_size * 8);
    // Lines are written in random order: prefetch a few keys ahead so the
    // cache misses overlap.
    constexpr size_t kAhead = 8;
    for (size_t i = 0; i < hashes.size(); ++i) {
      if (i + kAhead < hashes.size()) {
        __builtin_prefetch(payload + FastRange64(hashes[i + kAhead], num_lines) * kLineBytes, 1);
      }
      const uint64_t h = hashes[i];
      char* line = payload + FastRange64(h, num_lines) * kLineBytes;
      BloomProbeSequence probe(h);
      for (int p = 0; p < probes; ++p) {
        const uint32_t bit = probe.Next(line_bits);
        line[bit >> 3] = static_cast<char>(line[bit >> 3] | (1 << (bit & 7)));
      }
    }
  }
  Trailer trailer;
  trailer.kind = kBloomKind;
  trailer.param_a = static_cast<uint8_t>(probes);
  AppendTrailer(trailer, start, dst);
}

bool BloomReader::ValidShape(size_t payload_size, int probes) {
  if (probes < 1 || probes > kMaxProbes) return false;
  return IsLines(payload_size) || payload_size <= kMaxSingleLineBytes;
}

BloomReader::BloomReader(const char* payload, size_t payload_size, int probes)
    : payload_(payload), probes_(probes) {
  if (IsLines(payload_size)) {
    num_lines_ = payload_size / kLineBytes;
    line_bits_ = kLineBits;
  } else {
    num_lines_ = payload_size > 0 ? 1 : 0;
    line_bits_ = static_cast<uint32_t>(payload_size * 8);
  }
}

void BloomReader::MayMatchBatch(size_t n, const uint64_t* hashes,
                                bool* results) const {
  if (num_lines_ == 0) {
    std::fill(results, results + n, false);
    return;
  }
  constexpr size_t kChunk = 32;
  const char* lines[kChunk];
  for (size_t base = 0; base < n; base += kChunk) {
    const size_t m = std::min(kChunk, n - base);
    for (size_t i = 0; i < m; ++i) {
      lines[i] = LineFor(hashes[base + i]);
      __builtin_prefetch(lines[i]);
    }
    for (size_t i = 0; i < m; ++i) {
      results[base + i] = ProbeLine(lines[i], hashes[base + i]);
    }
  }
}

}  // namespace sstfilter
