// libFuzzer target: a filter reader on arbitrary bytes must never crash,
// never read out of bounds (ASan), and never hit undefined behaviour
// (UBSan). When the first input byte is odd, the trailer's checksum is
// recomputed over the input, so the fuzzer reaches the kinds' parameter and
// shape checks instead of stopping at the checksum; when its bit 1 is set,
// the input ends in a valid small-form trailer instead (for a key count
// from bytes 0 and 1), so the fuzzer reaches the small form's layout and
// its bitmap decoding (too few zeros, too many ones).

#include <cstdint>
#include <cstring>
#include <string>

#include "filters/filter.h"
#include "filters/small_filter.h"
#include "format/hash.h"
#include "format/trailer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sstfilter;
  if (size == 0) return 0;
  const bool fix_checksum = data[0] & 1;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (fix_checksum && bytes.size() >= kTrailerSize) {
    const uint32_t sum = ContentChecksum(bytes.data(), bytes.size() - 4);
    for (int i = 0; i < 4; ++i) bytes[bytes.size() - 4 + i] = static_cast<char>(sum >> (8 * i));
  }
  if ((data[0] & 2) && bytes.size() >= 4) {
    // A trailer for the key count the input's byte 1 names (1..1024),
    // over the rest as payload.
    const size_t n = 1 + ((static_cast<size_t>(data[0] >> 2) << 8 | (size > 1 ? data[1] : 0)) % kMaxSmallKeys);
    if (bytes.size() > SmallTrailerSize(n)) SealSmallFilter(&bytes[0], bytes.size(), n);
  }
  // Exact-size heap copy so ASan catches any read past the end.
  std::unique_ptr<char[]> exact(new char[bytes.size() + 1]);
  std::memcpy(exact.get(), bytes.data(), bytes.size());
  const auto reader = NewFilterReader(exact.get(), bytes.size());
  uint64_t hashes[64];
  bool results[64];
  for (int i = 0; i < 64; ++i) hashes[i] = Mix64(i + size);
  for (int i = 0; i < 64; ++i) {
    if (reader->MayMatch(hashes[i]) != FilterMayMatch(exact.get(), bytes.size(), hashes[i])) {
      __builtin_trap();  // the two query paths must agree
    }
  }
  reader->MayMatchBatch(64, hashes, results);
  for (int i = 0; i < 64; ++i) {
    if (results[i] != reader->MayMatch(hashes[i])) __builtin_trap();
  }
  return 0;
}
