// FuseDescriptor::Parse: checking a fuse payload against the shapes the
// builder writes.

#include "filters/fuse_kind.h"

namespace sstfilter {

bool FuseDescriptor::Parse(const Trailer& trailer, const char* payload,
                           size_t payload_size, FuseLayout* layout) {
  const int f = trailer.param_a;
  const int arity = trailer.param_b;
  if (f < kMinFuseFingerprintBits || f > kMaxFuseFingerprintBits) return false;
  if (arity != 3 && arity != 4) return false;
  if (payload_size <= kFuseHeaderSize) return false;
  const uint64_t segment_count = DecodeFixed32(payload + 8);
  const int segment_log = static_cast<uint8_t>(payload[12]);
  uint64_t wide = 0;  // bytes 13..15, u24 LE; 0 in the first layout
  for (int i = 0; i < 3; ++i) wide |= uint64_t{static_cast<uint8_t>(payload[13 + i])} << (8 * i);
  if (segment_count == 0 || segment_log > kMaxFuseSegmentLog) return false;
  const uint64_t segments = segment_count + static_cast<uint64_t>(arity) - 1;
  if (wide > 0 && (f >= kMaxFuseFingerprintBits || wide >= segments)) return false;
  // At most 2^32 segments of 2^18 slots of 33 bits: no overflow below.
  const uint64_t slots = segments << segment_log;
  const uint64_t bits = slots * static_cast<uint64_t>(f) + (wide << segment_log);
  if (kFuseHeaderSize + (bits + 7) / 8 != payload_size) return false;
  layout->seed = DecodeFixed64(payload);
  layout->segment_count = segment_count;
  layout->segment_log = segment_log;
  layout->wide_segments = wide;
  layout->array = payload + kFuseHeaderSize;
  return true;
}

}  // namespace sstfilter
