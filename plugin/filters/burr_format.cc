// Parsing a bumped ribbon payload (docs/format.md):
//   header (4 bytes): layers u8, bucket log u8 (6), attempt u8, zero u8
//   per layer (8 bytes): blocks u32, narrow blocks u32
//   per layer: threshold codes, 2 bits per bucket of 64 starts, 4 to a
//     byte from the low bits; then the solution, block after block, each block its columns' 64-bit
//     words (little-endian)
//   zeros up to the payload's size
// The trailer's param_a is the narrow blocks' column count (1 to 31).

#include <cmath>

#include "filters/burr_kind.h"

namespace sstfilter {

bool BurrDescriptor::Parse(const Trailer& trailer, const char* payload, size_t payload_size,
                           BurrLayout* layout) {
  if (trailer.param_a < 1 || trailer.param_a >= kMaxBurrColumns || trailer.param_b != 0) return false;
  if (payload_size < kBurrHeaderSize) return false;
  const auto* p = reinterpret_cast<const uint8_t*>(payload);
  const int layers = p[0];
  if (layers < 1 || layers > kBurrMaxLayers || p[1] != kBurrBucketLog) return false;
  if (p[2] >= kMaxBurrAttempts || p[3] != 0) return false;
  const uint64_t header = kBurrHeaderSize + kBurrLayerHeaderSize * static_cast<uint64_t>(layers);
  if (payload_size < header) return false;
  layout->seed = BurrSeedOfAttempt(p[2]);
  layout->columns = trailer.param_a;
  layout->layers = layers;
  uint64_t offset = header;
  for (int l = 0; l < layers; ++l) {
    const char* lh = payload + kBurrHeaderSize + kBurrLayerHeaderSize * static_cast<uint64_t>(l);
    const uint64_t blocks = DecodeFixed32(lh);
    const uint64_t narrow = DecodeFixed32(lh + 4);
    if (blocks == 0 || narrow > blocks) return false;
    const uint64_t starts = blocks * 64 - (kBurrRibbonWidth - 1);
    const uint64_t buckets = (starts + kBurrBucketSize - 1) >> kBurrBucketLog;
    const uint64_t code_bytes = (buckets + 3) / 4;
    const uint64_t words = BurrFirstWordOfBlock(blocks, narrow, layout->columns);
    if (code_bytes + 8 * words > payload_size - offset) return false;
    BurrLayerView& view = layout->layer[l];
    view.starts = starts;
    view.narrow_blocks = narrow;
    view.codes = p + offset;
    view.words = payload + offset + code_bytes;
    offset += code_bytes + 8 * words;
  }
  return true;
}

double BurrLayoutFpr(const BurrLayout& layout) {
  double fpr = 0, reach = 1;
  for (int l = 0; l < layout.layers; ++l) {
    const BurrLayerView& v = layout.layer[l];
    double narrow = 0, wide = 0, bumped = 0;
    for (uint64_t s = 0; s < v.starts; ++s) {
      const uint64_t b = s >> kBurrBucketLog;
      const unsigned code = (v.codes[b >> 2] >> (2 * (b & 3))) & 3;
      if ((s & (kBurrBucketSize - 1)) < BurrThreshold(code)) {
        ++bumped;
      } else if ((s >> 6) < v.narrow_blocks) {
        ++narrow;
      } else {
        ++wide;
      }
    }
    const double starts = static_cast<double>(v.starts);
    fpr += reach * (narrow * std::ldexp(1.0, -layout.columns) +
                    wide * std::ldexp(1.0, -layout.columns - 1)) / starts;
    reach *= bumped / starts;
  }
  return fpr + reach;  // bumped from the last layer: "may match"
}

}  // namespace sstfilter
