// Cuckoo filter construction: shape choice, placement with bounded
// evictions and a stash, and encoding. Format in docs/format.md.

#include <algorithm>
#include <cmath>

#include "filters/bits_per_key.h"
#include "filters/cuckoo_filter.h"
#include "filters/cuckoo_hashing.h"
#include "filters/cuckoo_kind.h"
#include "filters/cuckoo_stash.h"
#include "filters/cuckoo_table.h"
#include "filters/filter_plan.h"
#include "format/coding.h"

namespace sstfilter {
namespace {

constexpr double kMaxLoad = 0.95;
constexpr double kLoadTolerance = 1.001;
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
// is packed once at the end. Slot is uint16_t when fingerprints fit (f <=
// 16), halving the memory the random accesses roam over.
template <typename Slot>
class Placement {
 public:
  Placement(const CuckooShape& shape, uint64_t seed)
      : hashing_(shape.fp_bits, shape.num_buckets),
        slots_(shape.num_buckets * kSlotsPerBucket, 0),
        rng_(seed) {}

  // Places every hash; false if the stash overflowed.
  bool PlaceAll(const std::vector<uint64_t>& hashes) {
    // Buckets are visited in random order: locate and prefetch a few keys
    // ahead so the cache misses overlap.
    constexpr size_t kAhead = 8;
    CuckooAddress ahead[kAhead];
    const size_t n = hashes.size();
    for (size_t i = 0; i < std::min(n, kAhead); ++i) ahead[i] = Prefetch(hashes[i]);
    for (size_t i = 0; i < n; ++i) {
      const CuckooAddress addr = ahead[i % kAhead];
      if (i + kAhead < n) ahead[i % kAhead] = Prefetch(hashes[i + kAhead]);
      if (!Insert(addr)) return false;
    }
    return true;
  }

  // The placed table; the Placement is spent afterwards.
  std::vector<Slot> TakeSlots() { return std::move(slots_); }
  std::vector<StashEntry> TakeStash() { return std::move(stash_); }

 private:
  CuckooAddress Prefetch(uint64_t hash) const {
    const CuckooAddress a = hashing_.Locate(hash);
    __builtin_prefetch(&slots_[a.bucket * kSlotsPerBucket]);
    __builtin_prefetch(&slots_[hashing_.AltBucket(a.bucket, a.fp) * kSlotsPerBucket]);
    return a;
  }

  bool Has(uint64_t bucket, uint32_t fp) const {
    const Slot* s = &slots_[bucket * kSlotsPerBucket];
    return s[0] == fp || s[1] == fp || s[2] == fp || s[3] == fp;
  }

  bool Put(uint64_t bucket, uint32_t fp) {
    Slot* s = &slots_[bucket * kSlotsPerBucket];
    for (int j = 0; j < kSlotsPerBucket; ++j) {
      if (s[j] == 0) {
        s[j] = static_cast<Slot>(fp);
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
    if (MoveOneAside(i1, i2, addr.fp)) return true;
    uint64_t bucket = (rng_.Next() & 1) ? i1 : i2;
    uint32_t fp = addr.fp;
    for (int kick = 0; kick < kMaxKicks; ++kick) {
      Slot& victim = slots_[bucket * kSlotsPerBucket + rng_.Next() % kSlotsPerBucket];
      const uint32_t evicted = victim;
      victim = static_cast<Slot>(fp);
      fp = evicted;
      bucket = hashing_.AltBucket(bucket, fp);
      if (Has(bucket, fp) || Put(bucket, fp)) return true;
    }
    if (stash_.size() >= kMaxStashEntries) return false;
    stash_.push_back({bucket, fp});
    return true;
  }

  // Both candidate buckets are full. Look one step ahead before a random
  // walk: if one of their eight entries has room in its other bucket, move
  // it there and take its slot. The eight other buckets are prefetched
  // together, so their cache misses overlap; most inserts that would have
  // started a walk end here.
  bool MoveOneAside(uint64_t i1, uint64_t i2, uint32_t fp) {
    uint64_t alt[2 * kSlotsPerBucket];
    for (int j = 0; j < 2 * kSlotsPerBucket; ++j) {
      const uint64_t home = j < kSlotsPerBucket ? i1 : i2;
      alt[j] = hashing_.AltBucket(home, slots_[home * kSlotsPerBucket + j % kSlotsPerBucket]);
      __builtin_prefetch(&slots_[alt[j] * kSlotsPerBucket]);
    }
    for (int j = 0; j < 2 * kSlotsPerBucket; ++j) {
      const uint64_t home = j < kSlotsPerBucket ? i1 : i2;
      Slot& slot = slots_[home * kSlotsPerBucket + j % kSlotsPerBucket];
      if (Put(alt[j], slot)) {
        slot = static_cast<Slot>(fp);
        return true;
      }
    }
    return false;
  }

  CuckooHashing hashing_;
  std::vector<Slot> slots_;
  std::vector<StashEntry> stash_;
  SplitMix64 rng_;
};

template <typename Codec, typename Slot>
void EncodeBuckets(const Codec& codec, const std::vector<Slot>& slots,
                   uint64_t num_buckets, char* base) {
  BitWriter out(base);
  uint32_t bucket[kSlotsPerBucket];
  for (uint64_t b = 0; b < num_buckets; ++b) {
    for (int j = 0; j < kSlotsPerBucket; ++j) bucket[j] = slots[b * kSlotsPerBucket + j];
    codec.Encode(bucket, &out);
  }
  out.Flush();
}

// Places `hashes` in `shape`, growing it until the stash holds what the
// table cannot, then appends the packed table and the stash to *dst.
template <typename Slot>
void PlaceAndEncode(const std::vector<uint64_t>& hashes, CuckooShape* shape,
                    std::string* dst) {
  std::vector<Slot> slots;
  std::vector<StashEntry> stash;
  for (uint64_t attempt = 0; shape->num_buckets > 0; ++attempt) {
    Placement<Slot> placement(*shape, attempt);
    if (placement.PlaceAll(hashes)) {
      slots = placement.TakeSlots();
      stash = placement.TakeStash();
      break;
    }
    // Stash overflow: the keys do not fit this table. Grow it and retry.
    shape->num_buckets += shape->num_buckets / 32 + 1;
  }
  const size_t start = dst->size();
  const unsigned w = CuckooBucketBits(shape->kind, shape->fp_bits);
  const size_t table_bytes = static_cast<size_t>((shape->num_buckets * w + 7) / 8);
  dst->resize(start + table_bytes);
  char* base = &(*dst)[start];
  if (shape->kind == kCuckooSemiSortedKind) {
    EncodeBuckets(SemiSortedBucketCodec(shape->fp_bits), slots, shape->num_buckets, base);
  } else {
    EncodeBuckets(PlainBucketCodec(shape->fp_bits), slots, shape->num_buckets, base);
  }
  AppendStash(stash, dst);
  shape->stash_entries = stash.size();
}

}  // namespace

unsigned CuckooBucketBits(FilterKind kind, int fp_bits) {
  return kind == kCuckooSemiSortedKind
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
  if (variant != CuckooVariant::kSemiSorted) kinds.push_back(kCuckooPlainKind);
  if (variant != CuckooVariant::kPlain) kinds.push_back(kCuckooSemiSortedKind);

  const double n = static_cast<double>(num_keys);
  // The load limit is 95% give or take 0.1%: at budgets such as 20
  // bits/key (semi-sorted f = 20: 19 bits a slot, exactly 95%) rounding
  // the bucket count up would otherwise overshoot the budget by a few bits
  // and drop to a fingerprint one bit shorter, doubling the FPR.
  const uint64_t min_buckets =
      num_keys == 0
          ? 0
          : std::max<uint64_t>(1, CeilDiv(n / (kSlotsPerBucket * kMaxLoad * kLoadTolerance)));
  const uint64_t low_load_buckets =
      std::max(min_buckets, CeilDiv(n / (kSlotsPerBucket * kMinLoad)));
  // At most kMaxBitsPerKey, as the builders take it; NaN or not positive
  // buys nothing (the fallback below). The cast to an integer below is then
  // always defined.
  const double budget_bits =
      std::floor(n * ClampBitsPerKey(bits_per_key, 0, kMaxBitsPerKey));

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
    best.fits_budget = num_keys == 0;  // an empty table fits any budget
  }
  return best;
}

void AppendCuckooFilter(CuckooShape shape, const std::vector<uint64_t>& hashes,
                        std::string* dst) {
  const size_t start = dst->size();
  if (shape.fp_bits <= 16) {
    PlaceAndEncode<uint16_t>(hashes, &shape, dst);
  } else {
    PlaceAndEncode<uint32_t>(hashes, &shape, dst);
  }

  Trailer trailer;
  trailer.kind = shape.kind;
  trailer.param_a = static_cast<uint8_t>(shape.fp_bits);
  trailer.param_b = static_cast<uint8_t>(shape.stash_entries);
  AppendTrailer(trailer, start, dst);
}

FilterPlan PlanCuckoo(size_t num_keys, double bits_per_key, CuckooVariant variant) {
  bits_per_key = ClampBitsPerKey(bits_per_key, kMinCuckooBitsPerKey, kMaxBitsPerKey);
  const CuckooShape shape = ChooseCuckooShape(num_keys, bits_per_key, variant);
  if (!shape.fits_budget) return PlanBloom(num_keys, bits_per_key, BloomSizing::kExactBytes);
  FilterPlan plan;
  plan.kind = shape.kind;
  plan.set_shape(shape);
  const uint64_t bits = shape.num_buckets * CuckooBucketBits(shape.kind, shape.fp_bits);
  plan.bytes = static_cast<size_t>((bits + 7) / 8) + kTrailerSize;
  plan.expected_fpr = CuckooExpectedFpr(shape, num_keys);
  return plan;
}

CuckooBuilder::CuckooBuilder(double bits_per_key, CuckooVariant variant)
    : bits_per_key_(ClampBitsPerKey(bits_per_key, kMinCuckooBitsPerKey, kMaxBitsPerKey)),
      variant_(variant) {}

FilterPlan CuckooBuilder::Plan(size_t num_keys) const {
  return PlanCuckoo(num_keys, bits_per_key_, variant_);
}

}  // namespace sstfilter
