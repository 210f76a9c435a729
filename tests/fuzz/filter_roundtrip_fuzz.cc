// libFuzzer target: build a filter from an arbitrary key set, then every
// key must match (single, batched, one-shot). Input layout:
//   byte 0: filter type (mod AllFilterTypes().size(), today bloom, cuckoo,
//   cuckoo_plain, cuckoo_semisorted, fuse, burr), byte 1: bits/key (4.5 + byte / 2.6, so
//   4.5 to 102.6, capped at 100), rest: keys separated by 0xFF.
// Up to 1024 keys the builder usually writes the small form
// (small_filter.h). A false negative traps, which libFuzzer reports as a
// crash. Keys reach
// the builder through XXH3, so this cannot aim entries at chosen buckets:
// filter_hashes_fuzz feeds raw hashes for that.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "filters/filter_spec.h"
#include "format/hash.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sstfilter;
  if (size < 2) return 0;
  FilterSpec spec;
  spec.type = AllFilterTypes()[data[0] % AllFilterTypes().size()];
  spec.bits_per_key = std::min(100.0, 4.5 + data[1] / 2.6);
  if (!ValidateFilterSpec(spec).empty()) return 0;

  std::vector<uint64_t> hashes;
  const auto* begin = reinterpret_cast<const char*>(data) + 2;
  const auto* end = reinterpret_cast<const char*>(data) + size;
  for (const char* p = begin;;) {
    const char* sep = std::find(p, end, static_cast<char>(0xFF));
    hashes.push_back(KeyHash(p, sep - p));
    if (sep == end) break;
    p = sep + 1;
  }
  auto builder = NewFilterBuilder(spec);
  for (uint64_t h : hashes) builder->AddHash(h);
  std::string filter;
  builder->Finish(&filter);
  const auto reader = NewFilterReader(filter.data(), filter.size());
  std::unique_ptr<bool[]> batch(new bool[hashes.size()]);
  reader->MayMatchBatch(hashes.size(), hashes.data(), batch.get());
  for (size_t i = 0; i < hashes.size(); ++i) {
    if (!reader->MayMatch(hashes[i]) || !batch[i] ||
        !FilterMayMatch(filter.data(), filter.size(), hashes[i])) {
      __builtin_trap();  // false negative
    }
  }
  return 0;
}
