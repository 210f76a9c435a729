#include "bloom.h"

#include <algorithm>
#include <cmath>

#include "hash.h"
#include "trailer.h"

namespace sstfilter {
namespace {

constexpr uint32_t kLineBytes = 64;
constexpr uint32_t kLineBits = kLineBytes * 8;
constexpr int kMaxProbes = 30;
// Odd 64-bit multiplier (2^64 / golden ratio); each probe takes the top bits
// of the running product, which depend on every bit of the hash.
constexpr uint64_t kProbeMul = 0x9e3779b97f4a7c15ULL;

inline uint32_t ProbeBit(uint64_t mixed, uint32_t line_bits) {
  return FastRange32(static_cast<uint32_t>(mixed >> 32), line_bits);
}

}  // namespace

double BloomExpectedFpr(double bits_per_key, int probes) {
  // Keys per line ~ Poisson(lambda); a line holding j keys has a fraction
  // 1 - (1 - 1/512)^(k j) of its bits set. Sum over j around the mean.
  const double lambda = kLineBits / bits_per_key;
  const double k = probes;
  const int hi = static_cast<int>(lambda + 12 * std::sqrt(lambda) + 20);
  const int lo = std::max(0, static_cast<int>(lambda - 12 * std::sqrt(lambda)));
  double fpr = 0;
  for (int j = lo; j <= hi; ++j) {
    const double log_p = -lambda + j * std::log(lambda) - std::lgamma(j + 1.0);
    const double set = 1.0 - std::pow(1.0 - 1.0 / kLineBits, k * j);
    fpr += std::exp(log_p) * std::pow(set, k);
  }
  return fpr;
}

int BloomProbes(double bits_per_key) {
  int best = 1;
  double best_fpr = BloomExpectedFpr(bits_per_key, 1);
  for (int k = 2; k <= kMaxProbes; ++k) {
    const double fpr = BloomExpectedFpr(bits_per_key, k);
    if (fpr < best_fpr) {
      best = k;
      best_fpr = fpr;
    }
  }
  return best;
}

BloomBuilder::BloomBuilder(double bits_per_key)
    : bits_per_key_(std::clamp(bits_per_key, kMinBitsPerKey, kMaxBitsPerKey)),
      probes_(BloomProbes(bits_per_key_)) {}

size_t BloomBuilder::PayloadSize(size_t num_keys) const {
  if (num_keys == 0) return 0;
  const double bytes = std::ceil(num_keys * bits_per_key_ / 8);
  if (bytes < kLineBytes) return static_cast<size_t>(bytes);
  return static_cast<size_t>(std::ceil(bytes / kLineBytes)) * kLineBytes;
}

size_t BloomBuilder::FilterSize(size_t num_keys) const {
  return PayloadSize(num_keys) + kTrailerSize;
}

void BloomBuilder::BuildInto(const std::vector<uint64_t>& hashes,
                             std::string* dst) const {
  const size_t start = dst->size();
  const size_t payload_size = PayloadSize(hashes.size());
  dst->append(payload_size, '\0');
  if (payload_size > 0) {
    char* payload = &(*dst)[start];
    const bool short_line = payload_size < kLineBytes;
    const uint64_t num_lines = short_line ? 1 : payload_size / kLineBytes;
    const uint32_t line_bits =
        short_line ? static_cast<uint32_t>(payload_size * 8) : kLineBits;
    for (uint64_t h : hashes) {
      char* line = payload + FastRange64(h, num_lines) * kLineBytes;
      uint64_t mixed = h;
      for (int i = 0; i < probes_; ++i) {
        mixed *= kProbeMul;
        const uint32_t bit = ProbeBit(mixed, line_bits);
        line[bit >> 3] = static_cast<char>(line[bit >> 3] | (1 << (bit & 7)));
      }
    }
  }
  Trailer trailer;
  trailer.kind = FilterKind::kBloom;
  trailer.param_a = static_cast<uint8_t>(probes_);
  AppendTrailer(trailer, start, dst);
}

bool BloomReader::ValidShape(size_t payload_size, int probes) {
  if (probes < 1 || probes > kMaxProbes) return false;
  return payload_size < kLineBytes || payload_size % kLineBytes == 0;
}

BloomReader::BloomReader(const char* payload, size_t payload_size, int probes)
    : payload_(payload), probes_(probes) {
  if (payload_size >= kLineBytes) {
    num_lines_ = payload_size / kLineBytes;
    line_bits_ = kLineBits;
  } else {
    num_lines_ = payload_size > 0 ? 1 : 0;
    line_bits_ = static_cast<uint32_t>(payload_size * 8);
  }
}

const char* BloomReader::LineFor(uint64_t hash) const {
  return payload_ + FastRange64(hash, num_lines_) * kLineBytes;
}

bool BloomReader::ProbeLine(const char* line, uint64_t hash) const {
  uint64_t mixed = hash;
  for (int i = 0; i < probes_; ++i) {
    mixed *= kProbeMul;
    const uint32_t bit = ProbeBit(mixed, line_bits_);
    if (((line[bit >> 3] >> (bit & 7)) & 1) == 0) return false;
  }
  return true;
}

bool BloomReader::MayMatch(uint64_t hash) const {
  if (num_lines_ == 0) return false;  // no key was added
  return ProbeLine(LineFor(hash), hash);
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
