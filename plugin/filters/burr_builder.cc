// Bumped ribbon filter construction: layering with retries, the split of
// the budget into solution columns, back substitution, encoding. Format in
// docs/format.md; banding in burr_banding.cc.

#include <algorithm>

#include "filters/burr_banding.h"
#include "filters/burr_filter.h"
#include "filters/burr_hashing.h"
#include "filters/burr_reader.h"
#include "format/bits.h"
#include "format/coding.h"
#include "format/trailer.h"

namespace sstfilter {
namespace {

// Sorts `keys` ascending: two counting-sort passes on the top bits
// (least significant digit first, through a second array: 8 bytes/key for
// a moment, before any layer is allocated), then an insertion sort that
// only has to fix keys sharing those bits, about one neighbour each.
// Several times faster than std::sort at a million keys.
void SortKeys(std::vector<uint64_t>* keys) {
  const size_t n = keys->size();
  if (n < 256) {
    std::sort(keys->begin(), keys->end());
    return;
  }
  int bits = 2;
  while (bits < 24 && (size_t{1} << bits) < n) bits += 2;
  const int digit = bits / 2;
  std::vector<uint64_t> other(n);
  std::vector<size_t> count((size_t{1} << digit) + 1);
  for (int pass = 0; pass < 2; ++pass) {
    const int shift = 64 - bits + pass * digit;
    const uint64_t mask = (uint64_t{1} << digit) - 1;
    std::fill(count.begin(), count.end(), 0);
    for (uint64_t h : *keys) ++count[((h >> shift) & mask) + 1];
    for (size_t d = 1; d < count.size(); ++d) count[d] += count[d - 1];
    for (uint64_t h : *keys) other[count[(h >> shift) & mask]++] = h;
    keys->swap(other);
  }
  uint64_t* a = keys->data();
  for (size_t i = 1; i < n; ++i) {
    const uint64_t v = a[i];
    size_t j = i;
    while (j > 0 && a[j - 1] > v) {
      a[j] = a[j - 1];
      --j;
    }
    a[j] = v;
  }
}

// Bands every layer, layer 0 from `first` (sorted; not copied: at a
// million keys a copy would be the build's largest array after the
// layer's own); false if kBurrMaxLayers layers leave keys over.
bool BandLayers(const std::vector<uint64_t>& first, const BurrTuning& tuning,
                std::vector<BurrBandedLayer>* layers, BurrBuildStats* stats) {
  layers->clear();
  std::vector<uint64_t> values, bumped;
  const std::vector<uint64_t>* keys = &first;
  while (!keys->empty()) {
    if (layers->size() == static_cast<size_t>(kBurrMaxLayers)) return false;
    layers->emplace_back();
    bumped.clear();
    BandLayer(*keys, BurrLayerSlots(keys->size(), tuning), tuning, &layers->back(), &bumped);
    if (layers->size() == 1) stats->layer0_keys = keys->size() - bumped.size();
    for (uint64_t& h : bumped) h = BurrHashing::NextLayer(h);
    SortKeys(&bumped);
    values.swap(bumped);
    keys = &values;
  }
  return true;
}

size_t CodeBytes(uint64_t buckets) { return (buckets + 3) / 4; }

// Solves one layer for its columns, from the last slot down: `state[j]`
// holds column j's solution bits of the 64 slots from the current one, so
// a pivot row's bit is its fingerprint bit XOR the parity of the row (past
// its pivot) with the state; a free slot's bit is 0. Each block's words
// are written once the state holds it. Parity is most of the work: the
// kPopcnt instance is compiled for CPUs with POPCNT (one instruction; the
// baseline x86-64 build otherwise folds the word, about eight).
template <bool kPopcnt>
SSTFILTER_ALWAYS_INLINE void SolveLayer(const BurrBandedLayer& layer, uint64_t narrow_blocks,
                                        int columns, char* out) {
  const uint64_t blocks = layer.slots / 64;
  const int widest = columns + (narrow_blocks < blocks ? 1 : 0);
  uint64_t state[kMaxBurrColumns] = {};
  for (uint64_t i = layer.slots; i-- > 0;) {
    const uint64_t row = layer.rows[i];
    const uint32_t rhs = layer.rhs[i];
    if (row == 0) {
      for (int j = 0; j < widest; ++j) state[j] <<= 1;
    } else {
      const uint64_t rest = row >> 1;
      for (int j = 0; j < widest; ++j) {
        const uint64_t x = rest & state[j];
        const uint32_t parity = kPopcnt ? static_cast<uint32_t>(__builtin_popcountll(x))
                                        : static_cast<uint32_t>(__builtin_parityll(x));
        state[j] = (state[j] << 1) | (((rhs >> j) ^ parity) & 1);
      }
    }
    if (i % 64 == 0) {
      const uint64_t block = i / 64;
      const int c = BurrColumnsOfBlock(block, narrow_blocks, columns);
      char* words = out + 8 * BurrFirstWordOfBlock(block, narrow_blocks, columns);
      for (int j = 0; j < c; ++j) EncodeFixed64(words + 8 * j, state[j]);
    }
  }
}

SSTFILTER_TARGET_POPCNT void SolveWithPopcnt(const BurrBandedLayer& layer,
                                             uint64_t narrow_blocks, int columns, char* out) {
  SolveLayer<true>(layer, narrow_blocks, columns, out);
}

void Solve(const BurrBandedLayer& layer, uint64_t narrow_blocks, int columns, char* out) {
  if (CpuHasPopcnt()) return SolveWithPopcnt(layer, narrow_blocks, columns, out);
  SolveLayer<false>(layer, narrow_blocks, columns, out);
}

}  // namespace

bool AppendBurrFilter(size_t payload_bytes, std::vector<uint64_t>* keys, std::string* dst,
                      BurrBuildStats* stats) {
  return AppendBurrFilter(payload_bytes, keys, BurrTuning(), dst, stats);
}

bool AppendBurrFilter(size_t payload_bytes, std::vector<uint64_t>* keys, const BurrTuning& tuning,
                      std::string* dst, BurrBuildStats* stats_out) {
  BurrBuildStats stats;
  std::vector<BurrBandedLayer> layers;
  int attempt = 0;
  bool banded = false;
  SortKeys(keys);
  for (; attempt < kMaxBurrAttempts; ++attempt) {
    stats.attempts = attempt + 1;
    const uint64_t seed = BurrSeedOfAttempt(attempt);
    if (seed == 0) {
      banded = BandLayers(*keys, tuning, &layers, &stats);
    } else {
      // The failed attempt's layers go before the copy is made, so a
      // retry holds no more than the first attempt (BurrDescriptor::
      // WorkingBytes).
      std::vector<BurrBandedLayer>().swap(layers);
      std::vector<uint64_t> values(*keys);
      for (uint64_t& h : values) h = BurrHashing::FirstLayer(h, seed);
      SortKeys(&values);
      banded = BandLayers(values, tuning, &layers, &stats);
    }
    if (banded) break;
  }
  if (!banded || layers.empty()) return false;

  // Columns: the whole ones the budget buys in every block, then an extra
  // one in as many blocks as the rest buys, spread over the layers by
  // their share of blocks, each layer's at its top.
  size_t fixed = kBurrHeaderSize;
  uint64_t blocks = 0;
  for (const BurrBandedLayer& l : layers) {
    fixed += kBurrLayerHeaderSize + CodeBytes(l.codes.size());
    blocks += l.slots / 64;
    stats.slots += l.slots;
    stats.pivots += l.pivots;
  }
  if (payload_bytes < fixed + 8 * blocks) return false;
  const uint64_t words = (payload_bytes - fixed) / 8;
  int columns = static_cast<int>(std::min<uint64_t>(words / blocks, kMaxBurrColumns - 1));
  uint64_t wide = std::min<uint64_t>(words - blocks * static_cast<uint64_t>(columns), blocks);
  std::vector<uint64_t> narrow(layers.size());
  uint64_t wide_left = wide;
  for (size_t l = 0; l < layers.size(); ++l) {
    const uint64_t b = layers[l].slots / 64;
    const uint64_t share = std::min(b, wide * b / blocks);
    narrow[l] = b - share;
    wide_left -= share;
  }
  for (size_t l = 0; l < layers.size() && wide_left > 0; ++l) {
    const uint64_t more = std::min(narrow[l], wide_left);
    narrow[l] -= more;
    wide_left -= more;
  }

  const size_t payload_start = dst->size();
  dst->resize(payload_start + payload_bytes, '\0');
  char* p = &(*dst)[payload_start];
  p[0] = static_cast<char>(layers.size());
  p[1] = static_cast<char>(tuning.bucket_log);
  p[2] = static_cast<char>(attempt);
  char* layer_header = p + kBurrHeaderSize;
  char* body = layer_header + kBurrLayerHeaderSize * layers.size();
  for (size_t l = 0; l < layers.size(); ++l) {
    const BurrBandedLayer& layer = layers[l];
    const uint64_t b = layer.slots / 64;
    EncodeFixed32(layer_header + 8 * l, static_cast<uint32_t>(b));
    EncodeFixed32(layer_header + 8 * l + 4, static_cast<uint32_t>(narrow[l]));
    for (size_t k = 0; k < layer.codes.size(); ++k) {
      body[k / 4] = static_cast<char>(static_cast<uint8_t>(body[k / 4]) | (layer.codes[k] << (2 * (k % 4))));
    }
    body += CodeBytes(layer.codes.size());
    Solve(layer, narrow[l], columns, body);
    body += 8 * BurrFirstWordOfBlock(b, narrow[l], columns);
    stats.wide_blocks += b - narrow[l];
  }
  // What whole words do not fill stays zero at the end (the reader checks
  // the total).
  Trailer trailer;
  trailer.kind = kBurrKind;
  trailer.param_a = static_cast<uint8_t>(columns);
  trailer.param_b = 0;
  AppendTrailer(trailer, payload_start, dst);
  stats.layers = static_cast<int>(layers.size());
  stats.columns = columns;
  stats.blocks = blocks;
  if (stats_out != nullptr) *stats_out = stats;
  return true;
}

}  // namespace sstfilter
