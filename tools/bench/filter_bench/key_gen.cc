#include "key_gen.h"

#include <cstring>

namespace filter_bench {

void KeyMaker::Write(uint64_t id, char* out) const {
  std::memcpy(out, "key", 4);  // 3 letters and a NUL: 4 fixed bytes
  for (int i = 0; i < 8; ++i) {
    out[4 + i] = static_cast<char>(id >> (56 - 8 * i));
  }
  const uint64_t mixed = SplitMixFinalizer(id ^ seed_);
  for (int i = 0; i < 8; ++i) {
    out[12 + i] = static_cast<char>(mixed >> (8 * i));
  }
}

void KeyBatch::Resize(size_t n) {
  bytes_.resize(n * kKeySize);
  slices_.resize(n);
  // Re-point every Slice: resizing may have moved the bytes.
  for (size_t i = 0; i < n; ++i) {
    slices_[i] = rocksdb::Slice(&bytes_[i * kKeySize], kKeySize);
  }
}

}  // namespace filter_bench
