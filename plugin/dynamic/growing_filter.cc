#include "dynamic/growing_filter.h"

#include <algorithm>
#include <cmath>
#include <new>

namespace sstfilter {
namespace dynamic_cuckoo {

namespace {

constexpr uint64_t kMinBaseBuckets = 128;
constexpr uint64_t kMaxBuckets = uint64_t{1} << 39;
constexpr unsigned kDefaultGrowthBits = 17;  // expected_max_keys 0: initial * 2^17

double Mass(const uint64_t* by_length, unsigned max_length) {
  double m = 0;
  for (unsigned L = 0; L <= max_length; ++L) {
    if (by_length[L] != 0) {
      m += std::ldexp(static_cast<double>(by_length[L]), -int(GrowingTable::kTagBits + L));
    }
  }
  return m;
}

unsigned Longest(const uint64_t* by_length, unsigned max_length) {
  for (unsigned L = max_length + 1; L-- > 0;) {
    if (by_length[L] != 0) return L;
  }
  return 0;
}

}  // namespace

DynamicStatus GrowingFilter::Create(const DynamicCuckooOptions& options,
                                    std::unique_ptr<GrowingFilter>* out) {
  if (!(options.target_fpr > 0 && options.target_fpr < 0.5) || options.initial_capacity == 0 ||
      options.initial_capacity > (uint64_t{1} << 40) ||
      (options.expected_max_keys != 0 &&
       (options.expected_max_keys < options.initial_capacity ||
        options.expected_max_keys > (uint64_t{1} << 40)))) {
    return DynamicStatus::kInvalidArgument;
  }
  std::unique_ptr<GrowingFilter> f(new GrowingFilter());
  f->options_ = options;
  const double n0 = static_cast<double>(options.initial_capacity);
  const double n_max = options.expected_max_keys != 0
                           ? static_cast<double>(options.expected_max_keys)
                           : std::ldexp(n0, kDefaultGrowthBits);
  const uint64_t base = std::max<uint64_t>(
      kMinBaseBuckets, static_cast<uint64_t>(std::ceil(n0 / (kMaxLoad * kStartSlots))));
  for (double end = kMaxLoad * GrowingTable::kMaxSlots * static_cast<double>(base); end < n_max;
       end *= 2) {
    ++f->planned_;
  }
  const uint64_t none[GrowingTable::kMaxFpBits + 1] = {};
  f->new_l_ = f->ChooseLength(none, 0, base, 1);
  try {
    f->table_ = std::make_unique<GrowingTable>(base, 0, kStartSlots, f->new_l_);
  } catch (const std::bad_alloc&) {
    return DynamicStatus::kFull;
  }
  *out = std::move(f);
  return DynamicStatus::kOk;
}

double GrowingFilter::Allowed(unsigned phase) const {
  const double eps = options_.target_fpr;
  if (phase <= planned_) return (1 - kReserve) * eps * phase / planned_;
  double extra = 0;
  for (unsigned j = 1; j <= phase - planned_; ++j) extra += 6 / (M_PI * M_PI * j * j);
  return (1 - kReserve) * eps + kReserve * eps * extra;
}

unsigned GrowingFilter::ChooseLength(const uint64_t* by_length, unsigned max_length,
                                     uint64_t buckets, unsigned phase) const {
  uint64_t used = 0;
  for (unsigned L = 0; L <= max_length; ++L) used += by_length[L];
  const double b = static_cast<double>(buckets);
  const double room = std::max(0.0, kMaxLoad * GrowingTable::kMaxSlots * b - static_cast<double>(used));
  const double mass = Mass(by_length, max_length);
  const double allowed = Allowed(phase);
  for (unsigned L = kMinEntryBits; L < GrowingTable::kMaxFpBits; ++L) {
    const double fpr = (mass + std::ldexp(room, -int(GrowingTable::kTagBits + L))) / b;
    if (fpr <= allowed) return L;
  }
  return GrowingTable::kMaxFpBits;
}

DynamicStatus GrowingFilter::Grow() {
  const GrowingTable& t = *table_;
  uint64_t counts[GrowingTable::kMaxFpBits + 1] = {};
  for (unsigned L = 0; L <= t.fp_bits(); ++L) counts[L] = t.EntriesOfLength(L);
  try {
    if (t.slots() < GrowingTable::kMaxSlots) {
      // The phase's fingerprint length stands: it was chosen for the phase
      // filled to kMaxSlots.
      auto wider = std::make_unique<GrowingTable>(t.base_buckets(), t.level(), t.slots() + 1,
                                                   t.fp_bits());
      t.WidenInto(wider.get());
      table_ = std::move(wider);
      return DynamicStatus::kOk;
    }
    if (t.num_buckets() * 2 > kMaxBuckets) return DynamicStatus::kFull;
    // After the split: every entry one bit shorter, L = 0 entries in both
    // children.
    uint64_t split[GrowingTable::kMaxFpBits + 1] = {};
    split[0] = 2 * counts[0];
    for (unsigned L = 1; L <= t.fp_bits(); ++L) split[L - 1] += counts[L];
    const unsigned max_after = t.fp_bits() == 0 ? 0 : t.fp_bits() - 1;
    const unsigned l = ChooseLength(split, max_after, 2 * t.num_buckets(), phase_ + 1);
    const unsigned f = std::max(l, Longest(split, max_after));
    for (unsigned w = kStartSlots; w <= GrowingTable::kMaxSlots; ++w) {
      auto bigger = std::make_unique<GrowingTable>(t.base_buckets(), t.level() + 1, w, f);
      if (!t.SplitInto(bigger.get())) continue;  // an overflow found no room: wider buckets
      table_ = std::move(bigger);
      new_l_ = f;  // the slot holds f bits: new entries use them all
      ++phase_;
      return DynamicStatus::kOk;
    }
  } catch (const std::bad_alloc&) {
    return DynamicStatus::kFull;
  }
  return DynamicStatus::kFull;  // not reached: a split into kMaxSlots never overflows
}

DynamicStatus GrowingFilter::InsertHash(uint64_t hash) {
  for (;;) {
    if (static_cast<double>(table_->entries() + 1) >
        kMaxLoad * static_cast<double>(table_->capacity())) {
      const DynamicStatus s = Grow();
      if (s != DynamicStatus::kOk) return s;
    }
    const GrowingTable::Probe p = table_->ProbeFor(hash);
    if (table_->CountMatches(p) >= kDynamicCuckooMaxCopies) return DynamicStatus::kTooManyCopies;
    if (table_->Insert(p, new_l_)) {
      ++size_;
      return DynamicStatus::kOk;
    }
    const DynamicStatus s = Grow();
    if (s != DynamicStatus::kOk) return s;
  }
}

DynamicStatus GrowingFilter::EraseHash(uint64_t hash) {
  if (!table_->Erase(table_->ProbeFor(hash))) return DynamicStatus::kNotFound;
  --size_;
  return DynamicStatus::kOk;
}

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
