// Binary fuse filter construction: shape choice, peeling with retries and
// duplicate removal, fingerprint assignment, encoding. Format in
// docs/format.md.

#include <algorithm>
#include <cmath>

#include "filters/fuse_filter.h"
#include "filters/cuckoo_kind.h"
#include "filters/filter_plan.h"
#include "filters/fuse_hashing.h"
#include "filters/fuse_kind.h"
#include "filters/fuse_peeler.h"
#include "filters/fuse_test_seam.h"
#include "format/coding.h"
#include "format/trailer.h"

namespace sstfilter {
namespace {

// The multiplicative inverse of an odd number modulo 2^64 (Newton: each
// step doubles the correct low bits, from 3 for x = c).
constexpr uint64_t InverseOdd(uint64_t c) {
  uint64_t x = c;
  for (int i = 0; i < 5; ++i) x *= 2 - c * x;
  return x;
}

// Keys sorted by their remixed hash lie in slot order (FastRange64 is
// monotone), so counting walks the array front to back instead of at
// random, and so does the peeling queue's first pass (the slots it frees
// stay near the front it is working on). Below this many keys the arrays
// fit in cache anyway.
constexpr size_t kMinKeysToSort = 1 << 16;

uint64_t SeedOfAttempt(int attempt) {
  return static_cast<uint64_t>(attempt) * 0x9e3779b97f4a7c15ULL;
}

// Orders `keys` by their top bits: a counting sort, one pass, through a
// second array that then replaces the first (8 bytes/key for a moment,
// before the peeling's 9 per slot are allocated). An in-place American
// flag sort would save that memory but is slower: its swap chains are
// dependent random accesses.
void SortByTopBits(std::vector<uint64_t>* keys) {
  const size_t n = keys->size();
  if (n < kMinKeysToSort) return;
  // Up to 4096 buckets: the counters stay in L1, and a bucket's keys lie
  // within a few segments either way.
  int bits = 1;
  while (bits < 12 && (size_t{1} << (bits + 6)) < n) ++bits;
  const int shift = 64 - bits;
  std::vector<size_t> start((size_t{1} << bits) + 1, 0);
  for (uint64_t h : *keys) ++start[(h >> shift) + 1];
  for (size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  std::vector<uint64_t> sorted(n);
  for (uint64_t h : *keys) sorted[start[h >> shift]++] = h;
  keys->swap(sorted);
}

// Writes the fingerprints into `array` (zeroed, followed by 8 spare
// bytes): in reverse peeling order, each key's peeled slot gets the value
// that makes the XOR of its slots its fingerprint on the key's checked
// width (its narrowest slot's). A slot is written once, by the key peeled
// from it, and is zero until then, so the XOR takes in all `Arity` slots
// without a branch; a key's other slots are written only by keys peeled
// after it, which come first here. As in the reader, the slots are XORed
// unmasked (the bits above each one's field are its neighbours') and only
// the result is masked, to the peeled slot's width: the bits that matter,
// the key's checked ones, are exact; a wide peeled slot of a key checked
// on f bits gets an arbitrary top bit, which only keys checked on f+1
// bits read, and those are assigned after it.
template <int Arity>
void Assign(const FusePeeler<Arity>& peeler, const FuseHashing& hashing, const FuseSlotBits& bits,
            char* array) {
  // Local copies: every byte written to the array may alias them, and
  // through references the compiler would reload them after each one.
  const FuseHashing hs = hashing;
  const FuseSlotBits b = bits;
  const uint32_t* __restrict const order = peeler.peel_order();
  const uint64_t* __restrict const hash = peeler.slot_hashes();
  uint64_t s[Arity];
  constexpr size_t kAhead = 16;
  for (size_t q = peeler.peeled(); q-- > 0;) {
    if (q >= kAhead) __builtin_prefetch(&hash[order[q - kAhead]]);
    const uint32_t t = order[q];
    const uint64_t h = hash[t];
    hs.Slots<Arity>(h, s);
    uint64_t v = FuseHashing::FingerprintWord(h);
#pragma GCC unroll 4
    for (int i = 0; i < Arity; ++i) {
      const uint64_t pos = b.Position(s[i]);
      v ^= DecodeFixed64(array + (pos >> 3)) >> (pos & 7);
    }
    // The slot is still zero: OR the field in.
    const uint64_t pos = b.Position(t);
    const uint64_t field = v & b.SlotMask(t);
    char* p = array + (pos >> 3);
    EncodeFixed64(p, DecodeFixed64(p) | (field << (pos & 7)));
  }
}

// Tries to peel with `hashing`; on success appends header and array, and
// releases *keys (the peeler holds each key's hash from then on).
template <int Arity>
PeelResult TryBuild(std::vector<uint64_t>* keys, const FuseHashing& hashing,
                    const FuseShape& shape, std::string* dst) {
  FusePeeler<Arity> peeler(hashing, shape.num_slots());
  const PeelResult r = peeler.Run(keys);
  if (r != PeelResult::kDone) return r;
  std::vector<uint64_t>().swap(*keys);  // before the filter is allocated
  const size_t start = dst->size();
  dst->resize(start + shape.payload_size() + 8, '\0');
  char* header = &(*dst)[start];
  EncodeFixed64(header, hashing.seed());
  const auto sc = static_cast<uint32_t>(shape.segment_count);
  for (int i = 0; i < 4; ++i) header[8 + i] = static_cast<char>(sc >> (8 * i));
  header[12] = static_cast<char>(shape.segment_log);
  for (int i = 0; i < 3; ++i) header[13 + i] = static_cast<char>(shape.wide_segments >> (8 * i));
  const FuseSlotBits bits(static_cast<unsigned>(shape.fp_bits),
                          shape.wide_segments << shape.segment_log);
  Assign<Arity>(peeler, hashing, bits, header + kFuseHeaderSize);
  dst->resize(start + shape.payload_size());
  return PeelResult::kDone;
}

}  // namespace

uint64_t UnMix64(uint64_t x) {
  constexpr uint64_t kInv1 = InverseOdd(0xff51afd7ed558ccdULL);
  constexpr uint64_t kInv2 = InverseOdd(0xc4ceb9fe1a85ec53ULL);
  static_assert(kInv1 * 0xff51afd7ed558ccdULL == 1, "inverse");
  static_assert(kInv2 * 0xc4ceb9fe1a85ec53ULL == 1, "inverse");
  x ^= x >> 33;  // a shift of 33 or more undoes itself
  x *= kInv2;
  x ^= x >> 33;
  x *= kInv1;
  x ^= x >> 33;
  return x;
}

namespace {

// Slots per key for a high chance that one peeling succeeds, as fitted by
// Graf and Lemire (their reference code): more below about a million keys.
// 4-wise from 10k keys, our own fit, 0.805 + 3.55 / ln(n): the smallest
// that keeps the first peeling's success at about 89% or more
// (tools/research/fuse_sizing, docs/results/fuse_sizing.md), where theirs
// aims higher. A failure costs a retry with a new seed; the memory saved,
// 1-2.5% of the filter, lets 16 bits/key reach 14-bit fingerprints at
// smaller key counts.
constexpr size_t kRefitMinKeys = 10000;
double SlotsPerKey(size_t num_keys, int arity) {
  const double log_n = std::log(static_cast<double>(std::max<size_t>(num_keys, 2)));
  if (arity == 3) return std::max(1.125, 0.875 + 0.25 * std::log(1e6) / log_n);
  if (num_keys < kRefitMinKeys) return 0.77 + 0.305 * std::log(6e5) / log_n;
  return std::max(1.075, std::min(0.77 + 0.305 * std::log(6e5) / log_n, 0.805 + 3.55 / log_n));
}

// Segments of 2^segment_log slots for that many slots per key: the array
// spans segment_count + arity - 1 of them.
uint64_t SegmentsFor(size_t num_keys, int arity, int segment_log) {
  const double capacity = std::ceil(static_cast<double>(num_keys) * SlotsPerKey(num_keys, arity));
  const double segments = std::ceil(capacity / std::ldexp(1.0, segment_log));
  return static_cast<uint64_t>(std::max(1.0, segments - (arity - 1)));
}

// `shape` with the longest fingerprint that fits `array_bits`, and as many
// wide segments as the rest pays for (fp_bits 0 if none fits).
FuseShape FillBudget(FuseShape shape, double array_bits) {
  shape.fp_bits = static_cast<int>(std::min<double>(
      kMaxFuseFingerprintBits, std::floor(array_bits / static_cast<double>(shape.num_slots()))));
  if (shape.fp_bits == 0 || shape.fp_bits >= kMaxFuseFingerprintBits) return shape;
  // Only keys with all their slots in wide segments gain, so fewer than
  // arity of them gain nothing, and then the first layout (0) is written.
  const uint64_t segments = shape.segment_count + static_cast<uint64_t>(shape.arity) - 1;
  const double spare = array_bits - static_cast<double>(shape.num_slots() * shape.fp_bits);
  const auto wide = std::min<uint64_t>(
      {segments - 1, kMaxFuseWideSegments,
       static_cast<uint64_t>(std::floor(spare / std::ldexp(1.0, shape.segment_log)))});
  if (wide >= static_cast<uint64_t>(shape.arity)) shape.wide_segments = wide;
  return shape;
}

}  // namespace

FuseShape FuseLayoutFor(size_t num_keys, int arity) {
  // Segment length as fitted by Graf and Lemire: short segments for small
  // sets, up to 2^18 slots.
  const double log_n = std::log(static_cast<double>(std::max<size_t>(num_keys, 2)));
  const double log_length =
      arity == 3 ? log_n / std::log(3.33) + 2.25 : log_n / std::log(2.91) - 0.5;
  FuseShape shape;
  shape.arity = arity;
  shape.segment_log = std::clamp(static_cast<int>(std::floor(log_length)), 1, kMaxFuseSegmentLog);
  shape.segment_count = SegmentsFor(num_keys, arity, shape.segment_log);
  return shape;
}

FuseShape ChooseFuseShape(size_t num_keys, double bits_per_key) {
  FuseShape best;
  if (num_keys == 0 || num_keys > kMaxFuseKeys) return best;
  const double budget_bytes =
      std::floor(static_cast<double>(num_keys) *
                 ClampBitsPerKey(bits_per_key, 0, kMaxBitsPerKey) / 8);
  if (budget_bytes <= kFuseHeaderSize) return best;
  const double array_bits = (budget_bytes - kFuseHeaderSize) * 8;
  // Segments half as long would round the array up less, but they raise
  // the peeling's failure rate steeply (4-wise, 20k keys, 1.16 slots per
  // key: 83% of first attempts failed with them, 10% without).
  // With wide segments 4-wise nearly always gives the lower FPR (fewer
  // slots per key); its fourth load is issued with the other three, so it
  // adds little to a query's latency.
  for (int arity : {3, 4}) {
    const FuseShape shape = FillBudget(FuseLayoutFor(num_keys, arity), array_bits);
    if (shape.fp_bits > 0 && shape.expected_fpr() < best.expected_fpr()) best = shape;
  }
  return best;
}

double FuseShape::wide_share() const {
  const uint64_t before = static_cast<uint64_t>(arity) - 1;
  if (segment_count == 0 || wide_segments <= before) return 0;
  return std::min(1.0, static_cast<double>(wide_segments - before) /
                           static_cast<double>(segment_count));
}

double FuseShape::expected_fpr() const {
  if (fp_bits == 0) return 1;
  const double p = wide_share();
  return p * std::ldexp(1.0, -fp_bits - 1) + (1 - p) * std::ldexp(1.0, -fp_bits);
}

bool AppendFuseFilter(const FuseShape& shape, std::vector<uint64_t>* keys, std::string* dst) {
  int attempts = 0;
  return AppendFuseFilterFailingFirst(shape, keys, 0, &attempts, dst);
}

bool AppendFuseFilterFailingFirst(const FuseShape& shape, std::vector<uint64_t>* keys,
                                  int failed_attempts, int* attempts, std::string* dst) {
  const size_t start = dst->size();
  FuseHashing hashing(0, shape.segment_count, shape.segment_log, shape.arity);
  SortByTopBits(keys);  // seed 0 leaves hashes as they are
  for (int attempt = 0;;) {
    *attempts = attempt + 1;
    PeelResult r = PeelResult::kStalled;
    if (attempt >= failed_attempts) {
      r = shape.arity == 3 ? TryBuild<3>(keys, hashing, shape, dst)
                           : TryBuild<4>(keys, hashing, shape, dst);
    }
    if (r == PeelResult::kDone) {
      Trailer trailer;
      trailer.kind = kFuseKind;
      trailer.param_a = static_cast<uint8_t>(shape.fp_bits);
      trailer.param_b = static_cast<uint8_t>(shape.arity);
      AppendTrailer(trailer, start, dst);
      return true;
    }
    if (++attempt == kMaxFuseAttempts) break;
    // Another seed: a new hypergraph over the same keys.
    const FuseHashing next(SeedOfAttempt(attempt), shape.segment_count, shape.segment_log,
                           shape.arity);
    for (uint64_t& h : *keys) h = next.Remix(hashing.Unremix(h));
    hashing = next;
    SortByTopBits(keys);
  }
  for (uint64_t& h : *keys) h = hashing.Unremix(h);
  return false;
}

FilterPlan FuseDescriptor::PlanOf(const FuseShape& shape, size_t num_keys, double bits_per_key) {
  FilterPlan plan;
  plan.kind = kFuseKind;
  plan.set_shape(shape);
  plan.bytes = shape.payload_size() + kTrailerSize;
  plan.expected_fpr = shape.expected_fpr();
  plan.bloom = BloomShapeFor(num_keys, bits_per_key, BloomSizing::kExactBytes);
  return plan;
}

FilterPlan FuseDescriptor::Plan(int /*variant*/, size_t num_keys, double bits_per_key) {
  bits_per_key = ClampBitsPerKey(bits_per_key, kMinFuseBitsPerKey, kMaxBitsPerKey);
  const FilterPlan bloom = PlanBloom(num_keys, bits_per_key, BloomSizing::kExactBytes);
  const FilterPlan cuckoo = PlanCuckoo(num_keys, bits_per_key, CuckooVariant::kAuto);
  const FuseShape shape = ChooseFuseShape(num_keys, bits_per_key);
  const double floor = std::ldexp(1.0, -kMaxFuseFingerprintBits);
  const double fuse_fpr = shape.fp_bits > 0 ? std::max(floor, shape.expected_fpr()) : 2.0;
  const double cuckoo_fpr = std::max(floor, cuckoo.expected_fpr);
  const double bloom_fpr = std::max(floor, bloom.expected_fpr);
  if (fuse_fpr <= cuckoo_fpr && fuse_fpr <= bloom_fpr) {
    return PlanOf(shape, num_keys, bits_per_key);
  }
  return cuckoo_fpr < bloom_fpr ? cuckoo : bloom;
}

FuseBuilder::FuseBuilder(double bits_per_key)
    : bits_per_key_(ClampBitsPerKey(bits_per_key, kMinFuseBitsPerKey, kMaxBitsPerKey)) {}

FilterPlan FuseBuilder::Plan(size_t num_keys) const {
  return FuseDescriptor::Plan(0, num_keys, bits_per_key_);
}

}  // namespace sstfilter
