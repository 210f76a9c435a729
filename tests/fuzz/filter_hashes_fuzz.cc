// libFuzzer target: the core builders on raw 64-bit hashes the fuzzer
// chooses, no key hashing in between, so it can aim entries at the same
// buckets and fingerprints: full bucket pairs, long eviction walks, the
// stash, a stash overflow and the larger table built after it; for fuse
// filters, peelings that stall on structured hashes (the retries with a
// remixing seed) and far-apart duplicates. Checks that
// the bytes pass the reader's own checks, that every added hash matches
// (single, batched, one-shot), and that the same hashes give the same bytes.
// Input layout:
//   byte 0: builder (mod AllFilterTypes().size() + 2): the registered types
//           (today bloom, cuckoo, cuckoo_plain, cuckoo_semisorted, fuse, burr) as
//           NewFilterBuilder makes them, so that up to 1024 distinct
//           hashes they usually write the small form (small_filter.h), then
//           Bloom with exact-byte sizing (LevelDB's, and the cuckoo and
//           fuse builders' filter for tiny key counts), then a bumped
//           ribbon filter at any key count (the planner gives small ones
//           other kinds): buckets crowded past every threshold, whole
//           layers bumped, repeats
//   byte 1: bits/key, 4.5 + byte / 2.6 (4.5 to 102.6), capped at 100
//   byte 2: hash encoding. Even: 8 bytes a hash, little-endian. Odd: 2
//           bytes a hash, (b0 << 56) | (b1 << 24): b0 sets the top bits
//           (the bucket, or the Bloom line) and b1 the top of the low half
//           (the fingerprint), so a few byte values make many collisions
//           (and, as a fuse filter's first attempt uses hashes unmixed,
//           many stalled peelings).
//   rest:   the hashes; a partial one at the end is ignored
// A false negative or a failed check traps, which libFuzzer reports as a
// crash.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "filters/bloom.h"
#include "filters/bloom_kind.h"
#include "filters/burr_filter.h"
#include "filters/filter_spec.h"
#include "filters/burr_kind.h"
#include "filters/planner.h"
#include "filters/reader_dispatch.h"

namespace {

using namespace sstfilter;

std::vector<uint64_t> DecodeHashes(const uint8_t* data, size_t size, bool compact) {
  std::vector<uint64_t> hashes;
  const size_t width = compact ? 2 : 8;
  for (size_t i = 0; i + width <= size; i += width) {
    uint64_t h = 0;
    if (compact) {
      h = (uint64_t{data[i]} << 56) | (uint64_t{data[i + 1]} << 24);
    } else {
      for (size_t j = 0; j < 8; ++j) h |= uint64_t{data[i + j]} << (8 * j);
    }
    hashes.push_back(h);
  }
  return hashes;
}

// A bumped ribbon filter whatever the key count, by its own plan.
class AnySizeBurrBuilder : public FilterBuilder {
 public:
  explicit AnySizeBurrBuilder(double bits_per_key) : bits_per_key_(bits_per_key) {}
  FilterPlan Plan(size_t num_keys) const override {
    const BurrShape shape = ChooseBurrShape(num_keys, bits_per_key_);
    if (shape.payload_bytes == 0) return BurrDescriptor::Plan(0, num_keys, bits_per_key_);
    return BurrDescriptor::PlanOf(shape, num_keys, bits_per_key_);
  }

 private:
  double bits_per_key_;
};

std::unique_ptr<FilterBuilder> NewBuilder(uint8_t choice, double bits_per_key) {
  const auto& types = AllFilterTypes();
  const size_t pick = choice % (types.size() + 2);
  if (pick == types.size()) {
    return std::make_unique<BloomBuilder>(bits_per_key, BloomSizing::kExactBytes);
  }
  if (pick == types.size() + 1) return std::make_unique<AnySizeBurrBuilder>(bits_per_key);
  const FilterSpec spec{types[pick], bits_per_key};
  if (!ValidateFilterSpec(spec).empty()) return nullptr;
  return NewFilterBuilder(spec);
}

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const double bits_per_key = std::min(100.0, 4.5 + data[1] / 2.6);
  auto builder = NewBuilder(data[0], bits_per_key);
  if (builder == nullptr) return 0;
  const std::vector<uint64_t> hashes = DecodeHashes(data + 3, size - 3, data[2] & 1);

  for (uint64_t h : hashes) builder->AddHash(h);
  const size_t distinct_runs = builder->NumHashes();
  std::string filter;
  builder->Finish(&filter);
  // Never smaller than promised; larger only when cuckoo placement needed
  // the stash or a larger table, or fuse peeling failed every attempt.
  Check(filter.size() >= builder->FilterSize(distinct_runs));

  // The builder's bytes pass every check a reader makes (else they would
  // be read as "may match everything", silently).
  ParsedFilter parsed;
  Check(ParseFilter(filter.data(), filter.size(), &parsed));

  const auto reader = NewFilterReader(filter.data(), filter.size());
  std::unique_ptr<bool[]> batch(new bool[hashes.size() + 1]);
  reader->MayMatchBatch(hashes.size(), hashes.data(), batch.get());
  // The one-shot path re-verifies the checksum per call: a few only.
  const size_t one_shot = std::min<size_t>(hashes.size(), 64);
  for (size_t i = 0; i < hashes.size(); ++i) {
    Check(reader->MayMatch(hashes[i]) && batch[i]);  // no false negative
    if (i < one_shot) Check(FilterMayMatch(filter.data(), filter.size(), hashes[i]));
  }

  // The builder is empty again, and the same hashes give the same bytes.
  for (uint64_t h : hashes) builder->AddHash(h);
  std::string again;
  builder->Finish(&again);
  Check(again == filter);
  return 0;
}
