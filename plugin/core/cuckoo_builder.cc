// Cuckoo filter construction: shape choice, placement with bounded
// evictions and a stash, and encoding. Format in docs/format.md.

#include <algorithm>
#include <cmath>

#include "bloom.h"
#include "coding.h"
#include "cuckoo_filter.h"
#include "cuckoo_hashing.h"
#include "cuckoo_stash.h"
#include "cuckoo_table.h"

namespace sstfilter {
namespace {

constexpr double kMaxLoad = 0.95;
constexpr double kMinLoad = 0.50;
constexpr int kMaxKicks = 500;

uint64_t CeilDiv(double x) { return static_cast<uint64_t>(std::ceil(x)); }

// Deterministic generator for eviction choices: filters must be
// reproducible byte for byte, so no global or per-process randomness.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

// Unpacked working table: placement runs on plain integers, and the result
// is packed once at the end.
class Placement {
 public:
  Placement(const CuckooShape& shape, uint64_t seed)
      : hashing_(shape.fp_bits, shape.num_buckets),
        slots_(shape.num_buckets * kSlotsPerBucket, 0),
        rng_(seed) {}

  // Places every hash; false if the stash overflowed.
  bool PlaceAll(const std::vector<uint64_t>& hashes) {
    for (uint64_t h : hashes) {
      if (!Insert(hashing_.Locate(h))) return false;
    }
    return true;
  }

  // The placed table; the Placement is spent afterwards.
  std::vector<uint32_t> TakeSlots() { return std::move(slots_); }
  std::vector<StashEntry> TakeStash() { return std::move(stash_); }

 private:
  bool Has(uint64_t bucket, uint32_t fp) const {
    const uint32_t* s = &slots_[bucket * kSlotsPerBucket];
    return s[0] == fp || s[1] == fp || s[2] == fp || s[3] == fp;
  }

  bool Put(uint64_t bucket, uint32_t fp) {
    uint32_t* s = &slots_[bucket * kSlotsPerBucket];
    for (int j = 0; j < kSlotsPerBucket; ++j) {
      if (s[j] == 0) {
        s[j] = fp;
        return true;
      }
    }
    return false;
  }

  bool Insert(const CuckooAddress& addr) {
    const uint64_t i1 = addr.bucket;
    const uint64_t i2 = hashing_.AltBucket(i1, addr.fp);
    // An equal fingerprint in either bucket already answers for this key.
    if (Has(i1, addr.fp) || Has(i2, addr.fp)) return true;
    if (Put(i1, addr.fp) || Put(i2, addr.fp)) return true;
    uint64_t bucket = (rng_.Next() & 1) ? i1 : i2;
    uint32_t fp = addr.fp;
    for (int kick = 0; kick < kMaxKicks; ++kick) {
      std::swap(fp, slots_[bucket * kSlotsPerBucket + rng_.Next() % kSlotsPerBucket]);
      bucket = hashing_.AltBucket(bucket, fp);
      if (Has(bucket, fp) || Put(bucket, fp)) return true;
    }
    if (stash_.size() >= kMaxStashEntries) return false;
    stash_.push_back({bucket, fp});
    return true;
  }

  CuckooHashing hashing_;
  std::vector<uint32_t> slots_;
  std::vector<StashEntry> stash_;
  SplitMix64 rng_;
};

template <typename Codec>
void EncodeBuckets(const Codec& codec, const std::vector<uint32_t>& slots,
                   uint64_t num_buckets, char* base) {
  for (uint64_t b = 0; b < num_buckets; ++b) {
    codec.Encode(&slots[b * kSlotsPerBucket], base, b);
  }
}

}  // namespace

unsigned CuckooBucketBits(FilterKind kind, int fp_bits) {
  return kind == FilterKind::kCuckooSemiSorted
             ? SemiSortedBucketCodec(fp_bits).bucket_bits()
             : PlainBucketCodec(fp_bits).bucket_bits();
}

double CuckooExpectedFpr(const CuckooShape& shape, size_t num_keys) {
  if (shape.num_buckets == 0 || num_keys == 0) return 0;
  const double load =
      static_cast<double>(num_keys) / (shape.num_buckets * kSlotsPerBucket);
  const double per_slot = 1.0 / (std::ldexp(1.0, shape.fp_bits) - 1);
  return 1 - std::pow(1 - per_slot, 2 * kSlotsPerBucket * std::min(load, 1.0));
}

CuckooShape ChooseCuckooShape(size_t num_keys, double bits_per_key,
                              CuckooVariant variant) {
  std::vector<FilterKind> kinds;
  if (variant != CuckooVariant::kSemiSorted) kinds.push_back(FilterKind::kCuckoo);
  if (variant != CuckooVariant::kPlain) kinds.push_back(FilterKind::kCuckooSemiSorted);

  const double n = static_cast<double>(num_keys);
  const uint64_t min_buckets =
      num_keys == 0 ? 0 : std::max<uint64_t>(1, CeilDiv(n / (kSlotsPerBucket * kMaxLoad)));
  const uint64_t low_load_buckets =
      std::max(min_buckets, CeilDiv(n / (kSlotsPerBucket * kMinLoad)));
  const double budget_bits = std::floor(n * bits_per_key);

  CuckooShape best;
  double best_fpr = 2;
  for (FilterKind kind : kinds) {
    for (int f = kMinFingerprintBits; f <= kMaxFingerprintBits; ++f) {
      const unsigned w = CuckooBucketBits(kind, f);
      const auto fit = static_cast<uint64_t>(budget_bits / w);
      if (fit < min_buckets) break;  // larger f fits even less
      CuckooShape shape{kind, f, std::min(fit, low_load_buckets)};
      const double fpr = CuckooExpectedFpr(shape, num_keys);
      if (fpr < best_fpr) {
        best = shape;
        best_fpr = fpr;
      }
    }
  }
  if (best.fp_bits == 0) {
    // Nothing fits the budget (tiny key counts, or an empty filter): the
    // smallest table that holds the keys.
    best.kind = kinds.back();
    best.fp_bits = kMinFingerprintBits;
    best.num_buckets = min_buckets;
  }
  return best;
}

CuckooBuilder::CuckooBuilder(double bits_per_key, CuckooVariant variant)
    : bits_per_key_(std::clamp(bits_per_key, kMinCuckooBitsPerKey, kMaxBitsPerKey)),
      variant_(variant) {}

size_t CuckooBuilder::FilterSize(size_t num_keys) const {
  const CuckooShape shape = ChooseCuckooShape(num_keys, bits_per_key_, variant_);
  const uint64_t bits = shape.num_buckets * CuckooBucketBits(shape.kind, shape.fp_bits);
  return static_cast<size_t>((bits + 7) / 8) + kTrailerSize;
}

void CuckooBuilder::BuildInto(const std::vector<uint64_t>& hashes,
                              std::string* dst) const {
  CuckooShape shape = ChooseCuckooShape(hashes.size(), bits_per_key_, variant_);
  std::vector<uint32_t> slots;
  std::vector<StashEntry> stash;
  for (uint64_t attempt = 0; shape.num_buckets > 0; ++attempt) {
    Placement placement(shape, attempt);
    if (placement.PlaceAll(hashes)) {
      slots = placement.TakeSlots();
      stash = placement.TakeStash();
      break;
    }
    // Stash overflow: the keys do not fit this table. Grow it and retry.
    shape.num_buckets += shape.num_buckets / 32 + 1;
  }

  const size_t start = dst->size();
  const unsigned w = CuckooBucketBits(shape.kind, shape.fp_bits);
  const size_t table_bytes = static_cast<size_t>((shape.num_buckets * w + 7) / 8);
  // 8 bytes of slack for the codecs' wide stores, trimmed below.
  dst->append(table_bytes + 8, '\0');
  char* base = &(*dst)[start];
  if (shape.kind == FilterKind::kCuckooSemiSorted) {
    EncodeBuckets(SemiSortedBucketCodec(shape.fp_bits), slots, shape.num_buckets, base);
  } else {
    EncodeBuckets(PlainBucketCodec(shape.fp_bits), slots, shape.num_buckets, base);
  }
  dst->resize(start + table_bytes);
  AppendStash(stash, dst);

  Trailer trailer;
  trailer.kind = shape.kind;
  trailer.param_a = static_cast<uint8_t>(shape.fp_bits);
  trailer.param_b = static_cast<uint8_t>(stash.size());
  AppendTrailer(trailer, start, dst);
}

}  // namespace sstfilter
