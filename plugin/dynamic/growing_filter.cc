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

uint64_t GrowingFilter::BaseFor(const DynamicCuckooOptions& options) {
  const double n0 = static_cast<double>(options.initial_capacity);
  const double load = options.first_member_max_load != 0 ? options.first_member_max_load : kMaxLoad;
  return std::max<uint64_t>(kMinBaseBuckets,
                            static_cast<uint64_t>(std::ceil(n0 / (load * kStartSlots))));
}

DynamicStatus GrowingFilter::Create(const DynamicCuckooOptions& options,
                                    std::unique_ptr<GrowingFilter>* out) {
  const double share = options.first_member_fpr_share, load = options.first_member_max_load;
  if (!(options.target_fpr > 0 && options.target_fpr < 0.5) || options.initial_capacity == 0 ||
      options.initial_capacity > (uint64_t{1} << 40) ||
      options.expected_max_keys > (uint64_t{1} << 40) ||
      !(share == 0 || (share > 0 && share < 1)) || !(load == 0 || (load >= 0.5 && load <= 0.95))) {
    return DynamicStatus::kInvalidArgument;
  }
  std::unique_ptr<GrowingFilter> f(new GrowingFilter());
  f->options_ = options;
  if (share != 0) f->plan_share_ = share;
  if (load != 0) f->max_load_ = load;
  const uint64_t base = BaseFor(options);
  const double n_max = options.expected_max_keys != 0
                           ? static_cast<double>(options.expected_max_keys)
                           : std::ldexp(static_cast<double>(options.initial_capacity),
                                        kDefaultGrowthBits);
  for (double end = f->max_load_ * GrowingTable::kMaxSlots * static_cast<double>(base);
       end < n_max; end *= 2) {
    ++f->planned_;
  }
  const uint64_t none[GrowingTable::kMaxFpBits + 1] = {};
  f->new_l_ = f->ChooseLength(none, 0, base, f->BudgetFor(0, kStartSlots));
  try {
    f->Publish(std::make_unique<GrowingTable>(base, 0, kStartSlots, f->new_l_));
  } catch (const std::bad_alloc&) {
    return DynamicStatus::kFull;
  }
  *out = std::move(f);
  return DynamicStatus::kOk;
}

void GrowingFilter::Publish(std::unique_ptr<GrowingTable> t) {
  GrowingTable* old = table_;
  table_ = t.get();
  grow_at_ = static_cast<uint64_t>(max_load_ * static_cast<double>(table_->capacity()));
  owned_.push_back(std::move(t));
  const uint64_t s = seq_.load(std::memory_order_relaxed);
  seq_.store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  published_.store(table_, std::memory_order_release);
  seq_.store(s + 2, std::memory_order_release);
  if (old != nullptr) old->Retire();
}

bool GrowingFilter::ContainsSlow(uint64_t hash) const {
  for (;;) {
    const uint64_t s1 = seq_.load(std::memory_order_acquire);
    if (published_.load(std::memory_order_acquire)->ContainsHash(hash)) return true;
    std::atomic_thread_fence(std::memory_order_acquire);
    if (seq_.load(std::memory_order_relaxed) == s1 && (s1 & 1) == 0) return false;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

void GrowingFilter::ReplaceWith(GrowingFilter&& other) {
  options_ = other.options_;
  max_load_ = other.max_load_;
  plan_share_ = other.plan_share_;
  extra_ = std::move(other.extra_);
  side_bytes_.store(other.side_bytes_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  phase_ = other.phase_;
  planned_ = other.planned_;
  new_l_ = other.new_l_;
  std::unique_ptr<GrowingTable> t = std::move(other.owned_.back());
  other.owned_.clear();
  other.table_ = nullptr;
  other.published_.store(nullptr, std::memory_order_relaxed);
  Publish(std::move(t));
  size_.store(other.size_.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

GrowingFilter::Budget GrowingFilter::BudgetFor(unsigned level, unsigned slots) const {
  const double eps = options_.target_fpr;
  // With no growth planned, the initial table is the plan, and the
  // widenings at level 0 are the first phase past it.
  if (planned_ == 1 && level == 0 && slots == kStartSlots) {
    return {true, kStartSlots, plan_share_ * eps};
  }
  const unsigned first = planned_ == 1 && level == 0 ? kStartSlots + 1 : kStartSlots;
  if (slots != first) return {false, GrowingTable::kMaxSlots, 0};  // the phase's length stands
  if (planned_ >= 2 && level < planned_) {
    return {true, GrowingTable::kMaxSlots, plan_share_ * eps * (level + 1) / planned_};
  }
  const unsigned past = planned_ == 1 ? level + 1 : level - planned_ + 1;
  double extra = 0;
  for (unsigned j = 1; j <= past; ++j) extra += 6 / (M_PI * M_PI * j * j);
  return {true, GrowingTable::kMaxSlots, plan_share_ * eps + (1 - plan_share_) * eps * extra};
}

unsigned GrowingFilter::ChooseLength(const uint64_t* by_length, unsigned max_length,
                                     uint64_t buckets, const Budget& budget) const {
  uint64_t used = 0;
  for (unsigned L = 0; L <= max_length; ++L) used += by_length[L];
  const double b = static_cast<double>(buckets);
  const double room =
      std::max(0.0, max_load_ * budget.end_slots * b - static_cast<double>(used));
  const double mass = Mass(by_length, max_length);
  for (unsigned L = kMinEntryBits; L < GrowingTable::kMaxFpBits; ++L) {
    const double fpr = (mass + std::ldexp(room, -int(GrowingTable::kTagBits + L))) / b;
    if (fpr <= budget.allowed) return L;
  }
  return GrowingTable::kMaxFpBits;
}

DynamicStatus GrowingFilter::Grow() {
  const GrowingTable& t = *table_;
  try {
    uint64_t counts[GrowingTable::kMaxFpBits + 1] = {};
    for (unsigned L = 0; L <= t.fp_bits(); ++L) counts[L] = t.EntriesOfLength(L);
    if (t.slots() < GrowingTable::kMaxSlots) {
      // A phase's fingerprint length stands through its widenings: it was
      // chosen for the phase filled to kMaxSlots (BudgetFor).
      const Budget budget = BudgetFor(t.level(), t.slots() + 1);
      const unsigned f =
          budget.choose
              ? std::max(ChooseLength(counts, t.fp_bits(), t.num_buckets(), budget),
                         Longest(counts, t.fp_bits()))
              : t.fp_bits();
      auto wider = std::make_unique<GrowingTable>(t.base_buckets(), t.level(), t.slots() + 1, f);
      t.WidenInto(wider.get());
      Publish(std::move(wider));
      new_l_ = f;
      return DynamicStatus::kOk;
    }
    if (t.num_buckets() * 2 > kMaxBuckets) return DynamicStatus::kFull;
    // After the split: every entry one bit shorter, L = 0 entries in both
    // children.
    uint64_t split[GrowingTable::kMaxFpBits + 1] = {};
    split[0] = 2 * counts[0];
    for (unsigned L = 1; L <= t.fp_bits(); ++L) split[L - 1] += counts[L];
    const unsigned max_after = t.fp_bits() == 0 ? 0 : t.fp_bits() - 1;
    const unsigned l = ChooseLength(split, max_after, 2 * t.num_buckets(),
                                    BudgetFor(t.level() + 1, kStartSlots));
    const unsigned f = std::max(l, Longest(split, max_after));
    for (unsigned w = kStartSlots; w <= GrowingTable::kMaxSlots; ++w) {
      auto bigger = std::make_unique<GrowingTable>(t.base_buckets(), t.level() + 1, w, f);
      std::vector<GrowingTable::Unplaced> unplaced;
      t.SplitInto(bigger.get(), &unplaced);
      CopyCounts moved;
      // An entry with no room and no identical entry: wider buckets.
      if (!SplitCounts(bigger.get(), unplaced, &moved)) continue;
      Publish(std::move(bigger));
      extra_ = std::move(moved);
      side_bytes_.store(extra_.MemoryBytes(), std::memory_order_relaxed);
      new_l_ = f;  // the slot holds f bits: new entries use them all
      ++phase_;
      return DynamicStatus::kOk;
    }
  } catch (const std::bad_alloc&) {
    return DynamicStatus::kFull;
  }
  // Even at kMaxSlots an entry found no room and no identical entry:
  // kFull, nothing changed (improbable at the half load a split leaves).
  return DynamicStatus::kFull;
}

bool GrowingFilter::SplitCounts(GrowingTable* to,
                                const std::vector<GrowingTable::Unplaced>& unplaced,
                                CopyCounts* out) const {
  for (const CopyCounts::Entry& e : extra_.Sorted()) {
    const uint64_t i1 = ExtraI1(e.a), payload = ExtraPayload(e.a, e.b);
    const unsigned L = GrowingTable::PayloadLength(payload);
    if (L == 0) {  // as its entry: both children
      out->Add(ExtraA(2 * i1, payload), ExtraB(payload), e.count);
      out->Add(ExtraA(2 * i1 + 1, payload), ExtraB(payload), e.count);
      continue;
    }
    const uint64_t b = (payload >> L) & 1;
    const uint64_t moved = ((payload >> (L + 1)) << L) | (payload & ((uint64_t{1} << L) - 1));
    out->Add(ExtraA(2 * i1 + b, moved), ExtraB(moved), e.count);
  }
  // An entry that leaves the table (one with no room, or one merged to
  // free a slot) becomes a count beside a prefix of it in its buckets, and
  // so do the counts that were beside it: a count beside no entry of its
  // payload is seen by neither CopiesOf nor Erase, so its copies would be
  // lost while the keys they stand for are still held.
  const auto move_to_prefix = [out](uint64_t i1, uint64_t payload, uint64_t prefix) {
    const uint32_t n = 1 + out->Take(ExtraA(i1, payload), ExtraB(payload));
    out->Add(ExtraA(i1, prefix), ExtraB(prefix), n);
  };
  for (const GrowingTable::Unplaced& u : unplaced) {
    const uint64_t prefix = to->LongestPrefix(u.i1, u.entry);
    if (prefix != 0) {
      move_to_prefix(u.i1, to->PayloadOf(u.entry), prefix);
      continue;
    }
    bool placed = false;
    for (uint64_t b : {u.i1, to->Second(u.i1, to->TagOf(u.entry))}) {
      uint64_t i1 = 0, removed = 0, merged_into = 0;
      if (!placed && to->MergeOneCopy(b, &i1, &removed, &merged_into)) {
        move_to_prefix(i1, removed, merged_into);
        placed = to->Place(u.i1, u.entry);  // the freed slot at least
      }
    }
    if (!placed) return false;
  }
  return true;
}

void GrowingFilter::AddExtra(uint64_t i1, uint64_t payload) {
  extra_.Add(ExtraA(i1, payload), ExtraB(payload));
  side_bytes_.store(extra_.MemoryBytes(), std::memory_order_relaxed);
}

uint64_t GrowingFilter::ExtraCopies() const {
  uint64_t n = 0;
  for (const CopyCounts::Entry& e : extra_.Sorted()) n += e.count;
  return n;
}

bool GrowingFilter::CountsBesideEntries() const {
  for (const CopyCounts::Entry& e : extra_.Sorted()) {
    const uint64_t i1 = ExtraI1(e.a), payload = ExtraPayload(e.a, e.b);
    // The payload as an entry (a = 0): its longest prefix is itself if present.
    const unsigned L = GrowingTable::PayloadLength(payload);
    const uint64_t entry = (payload << (table_->fp_bits() - L)) & (table_->SecondBit() - 1);
    if (table_->LongestPrefix(i1, entry) != payload) return false;
  }
  return true;
}

unsigned GrowingFilter::CopiesOf(const GrowingTable::Probe& p, uint64_t* longest) const {
  GrowingTable::Found found[2 * GrowingTable::kMaxSlots];
  const unsigned n = table_->FindMatches(p, found);
  unsigned copies = n;
  *longest = n == 0 ? 0 : found[GrowingTable::Longest(found, n)].payload;
  for (unsigned j = 0; j < n; ++j) {
    const uint64_t payload = found[j].payload;
    // A count once per payload, however many entries carry it.
    bool seen = false;
    for (unsigned i = 0; i < j; ++i) seen = seen || found[i].payload == payload;
    if (!seen && !extra_.empty()) copies += extra_.Get(ExtraA(p.i1, payload), ExtraB(payload));
  }
  return copies;
}

DynamicStatus GrowingFilter::InsertHash(uint64_t hash) {
  for (;;) {
    if (table_->entries() + 1 > grow_at_) {  // past the load limit
      const DynamicStatus s = Grow();
      if (s != DynamicStatus::kOk) return s;
      continue;
    }
    const GrowingTable::Probe p = table_->ProbeFor(hash);
    table_->PrefetchBuckets(p);  // both buckets' misses overlap
    const GrowingTable::NewKey r = table_->InsertIfNew(p, new_l_, &seq_);
    if (r == GrowingTable::NewKey::kNoRoom) {
      const DynamicStatus s = Grow();
      if (s != DynamicStatus::kOk) return s;
      continue;
    }
    if (r == GrowingTable::NewKey::kPlaced) {
      size_.store(size_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      return DynamicStatus::kOk;
    }
    // A copy: the key matches already.
    uint64_t longest = 0;
    const unsigned copies = CopiesOf(p, &longest);
    if (copies >= kDynamicCuckooMaxCopies) return DynamicStatus::kTooManyCopies;
    if (!table_->Insert(p, new_l_, &seq_)) {
      if (copies == 0 || static_cast<double>(table_->entries()) >=
                             kCopyGrowShare * max_load_ * static_cast<double>(table_->capacity())) {
        const DynamicStatus s = Grow();
        if (s != DynamicStatus::kOk) return s;
        continue;
      }
      AddExtra(p.i1, longest);  // a copy pinned to full buckets
    }
    size_.store(size_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    return DynamicStatus::kOk;
  }
}

DynamicStatus GrowingFilter::EraseHash(uint64_t hash) {
  const GrowingTable::Probe p = table_->ProbeFor(hash);
  GrowingTable::Found found[2 * GrowingTable::kMaxSlots];
  const unsigned n = table_->FindMatches(p, found);
  if (n == 0) return DynamicStatus::kNotFound;
  // The longest match (safe to take: GrowingTable::Erase), a count before
  // its entry.
  const GrowingTable::Found& best = found[GrowingTable::Longest(found, n)];
  if (extra_.empty() || !extra_.Remove(ExtraA(p.i1, best.payload), ExtraB(best.payload))) {
    table_->RemoveAt(best.bucket, best.slot);
  } else {
    side_bytes_.store(extra_.MemoryBytes(), std::memory_order_relaxed);
  }
  size_.store(size_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
  return DynamicStatus::kOk;
}

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
