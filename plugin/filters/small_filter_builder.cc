// The small form's writer (AppendSmallFilter, small_filter.h). It stands
// above the reader dispatch, apart from the layout and reader in
// small_filter.cc, because the format's rule that a small filter never
// reads as a version-1 one is checked against every registered kind's
// parser (ParseVersion1Filter).

#include <algorithm>

#include "filters/reader_dispatch.h"
#include "filters/small_filter.h"
#include "format/hash.h"

namespace sstfilter {
namespace {

void SetBits(char* base, uint64_t pos, uint64_t value, unsigned width) {
  for (unsigned b = 0; b < width; ++b, ++pos) {
    if ((value >> b) & 1) base[pos >> 3] = static_cast<char>(base[pos >> 3] | (1 << (pos & 7)));
  }
}

}  // namespace

bool AppendSmallFilter(const std::vector<uint64_t>& hashes, size_t filter_bytes,
                       std::string* dst) {
  std::vector<uint64_t> sorted(hashes);
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  SmallLayout layout;
  if (!SmallLayoutFor(sorted.size(), filter_bytes, &layout)) return false;
  const size_t start = dst->size();
  dst->append(filter_bytes, '\0');
  char* out = &(*dst)[start];
  const unsigned k = layout.low_bits;  // at most kMaxSmallLowBits, below 64
  // FastRange64 is monotone, so sorted hashes give sorted fingerprints
  // (equal ones stay, as repeated entries of one bucket).
  for (uint64_t i = 0; i < sorted.size(); ++i) {
    const uint64_t v = FastRange64(sorted[i], layout.range);
    SetBits(out, (v >> k) + i, 1, 1);
    SetBits(out, layout.bitmap_bits + i * k, v & ((uint64_t{1} << k) - 1), k);
  }
  SealSmallFilter(out, filter_bytes, sorted.size());
  // The format's rule: a small filter never looks like a version-1 one.
  ParsedFilter v1;
  if (ParseVersion1Filter(out, filter_bytes, &v1, ChecksumCheck::kEngineVerified)) {
    dst->resize(start);
    return false;
  }
  return true;
}

}  // namespace sstfilter
