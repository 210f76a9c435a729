#include "sstfilter/dynamic_cuckoo.h"

#include <algorithm>
#include <cmath>
#include <new>

#include "dynamic/dynamic_cuckoo_rep.h"
#include "format/hash.h"

namespace sstfilter {

namespace {

// Calls body(hashes, count, first) for keys[0..n) a group at a time, with
// the group's key hashes.
template <size_t kGroup, typename Body>
void ForEachHashGroup(const std::string_view* keys, size_t n, Body&& body) {
  uint64_t hashes[kGroup];
  for (size_t start = 0; start < n; start += kGroup) {
    const size_t g = std::min(kGroup, n - start);
    for (size_t i = 0; i < g; ++i) {
      hashes[i] = KeyHash(keys[start + i].data(), keys[start + i].size());
    }
    body(hashes, g, start);
  }
}

}  // namespace

using dynamic_cuckoo::kMaxCopies;
using dynamic_cuckoo::kMaxLoad;
using dynamic_cuckoo::kMaxMembers;

const char* DynamicStatusName(DynamicStatus s) {
  switch (s) {
    case DynamicStatus::kOk: return "Ok";
    case DynamicStatus::kTooManyCopies: return "TooManyCopies";
    case DynamicStatus::kNotFound: return "NotFound";
    case DynamicStatus::kFull: return "Full";
    case DynamicStatus::kCorrupt: return "Corrupt";
    case DynamicStatus::kInvalidArgument: return "InvalidArgument";
  }
  return "Unknown";
}

namespace {

// A new table, or null when the system has no memory for it.
std::unique_ptr<DynamicCuckooTable> NewTable(uint64_t base_buckets, unsigned level,
                                             unsigned fp_bits, unsigned stable_bits,
                                             uint64_t zero_capacity) {
  if (!dynamic_cuckoo::WithinMaxBuckets(base_buckets, level)) return nullptr;
  try {
    return std::make_unique<DynamicCuckooTable>(base_buckets, level, fp_bits, stable_bits,
                                                zero_capacity);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

}  // namespace

DynamicStatus DynamicCuckooFilter::Rep::AddMember() {
  const uint32_t n = num_members.load(std::memory_order_relaxed);
  if (n >= kMaxMembers) return DynamicStatus::kFull;
  const dynamic_cuckoo::MemberPlan plan = dynamic_cuckoo::PlanMember(
      options, n, n == 0 ? 0 : current.back()->num_buckets(), later);
  auto table = NewTable(plan.base_buckets, 0, plan.fp_bits0, plan.stable_bits,
                        dynamic_cuckoo::ZeroCapacityFor(plan.base_buckets, plan.fp_bits0));
  if (table == nullptr) return DynamicStatus::kFull;
  owned.push_back(std::move(table));
  plans.push_back(plan);
  extra.emplace_back();
  current.push_back(owned.back().get());
  published[n].store(owned.back().get(), std::memory_order_release);
  num_members.store(n + 1, std::memory_order_release);
  return DynamicStatus::kOk;
}

void DynamicCuckooFilter::Rep::Publish(unsigned j, DynamicCuckooTable* t) {
  const uint64_t s = seq.load(std::memory_order_relaxed);
  seq.store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  published[j].store(t, std::memory_order_release);
  seq.store(s + 2, std::memory_order_release);
  current[j] = t;
}

DynamicStatus DynamicCuckooFilter::Rep::Grow() {
  const unsigned j = static_cast<unsigned>(current.size() - 1);
  DynamicCuckooTable* old = current[j];
  if (old->level() >= plans[j].max_level) return AddMember();
  uint64_t zero_cap = std::max(
      dynamic_cuckoo::ZeroCapacityFor(2 * old->num_buckets(), old->fp_bits() - 1),
      4 * old->zero_entries());
  for (;;) {
    auto bigger = NewTable(old->base_buckets(), old->level() + 1, old->fp_bits() - 1,
                           old->stable_bits(), zero_cap);
    if (bigger == nullptr) return DynamicStatus::kFull;
    if (old->DoubleInto(bigger.get())) {
      owned.push_back(std::move(bigger));
      Publish(j, owned.back().get());
      old->Retire();
      // The extra copies follow their slots: pair q of fingerprint fp
      // becomes pair 2q + (first bit of fp), fp loses that bit.
      const uint32_t top = 1U << (old->fp_bits() - 1);
      CopyCounts moved;
      for (const CopyCounts::Entry& e : extra[j].Sorted()) {
        moved.Add(2 * e.a + ((e.b & top) != 0), e.b & (top - 1), e.count);
      }
      extra[j] = std::move(moved);
      UpdateSideBytes();
      return DynamicStatus::kOk;
    }
    zero_cap *= 4;  // the zero set overflowed (improbable): try again larger
  }
}

void DynamicCuckooFilter::Rep::PlaceCopy(uint64_t hash, DynamicCuckooTable::Probe probe,
                                         const DynamicCuckooTable::PairSlots* read) {
  const size_t last = current.size() - 1;
  DynamicCuckooTable* m = current[last];
  const double limit = plans[last].max_load * static_cast<double>(m->capacity());
  const double load = static_cast<double>(m->entries());
  if (load < limit && m->Insert(probe, &seq, read)) return;
  // No room, or no path to a free slot (copies pinned to their pairs can
  // leave none well below the load limit): a member at least kCopyGrowLoad
  // full that has a planned doubling left doubles, as it would for a new
  // key at its limit, and the copy gets a slot in the doubled table;
  // otherwise its count goes beside the slot it copies (a copy never starts
  // a member).
  if (load >= dynamic_cuckoo::kCopyGrowLoad * limit && m->level() < plans[last].max_level &&
      Grow() == DynamicStatus::kOk) {
    m = current[last];
    probe = m->ProbeFor(hash);
    if (m->Insert(probe, &seq)) return;
  }
  extra[last].Add(DynamicCuckooTable::PairId(probe), probe.fp);
  UpdateSideBytes();
}

void DynamicCuckooFilter::Rep::UpdateSideBytes() {
  size_t bytes = pending.MemoryBytes();
  for (const CopyCounts& c : extra) bytes += c.MemoryBytes();
  side_bytes.store(bytes, std::memory_order_relaxed);
}

DynamicCuckooFilter::DynamicCuckooFilter() : rep_(new Rep) {}
DynamicCuckooFilter::~DynamicCuckooFilter() = default;

DynamicStatus DynamicCuckooFilter::Create(const DynamicCuckooOptions& options,
                                          std::unique_ptr<DynamicCuckooFilter>* out) {
  if (!dynamic_cuckoo::ValidOptions(options) ||
      (options.format_version != 0 && options.format_version != 3 &&
       options.format_version != 5)) {
    return DynamicStatus::kInvalidArgument;
  }
  std::unique_ptr<DynamicCuckooFilter> f(new DynamicCuckooFilter);
  f->rep_->options = options;
  if (options.format_version != 3) {
    const DynamicStatus s = dynamic_cuckoo::GrowingFilter::Create(options, &f->rep_->growing);
    if (s != DynamicStatus::kOk) return s;
    f->growing_ = f->rep_->growing.get();
    *out = std::move(f);
    return DynamicStatus::kOk;
  }
  DynamicStatus s = f->rep_->AddMember();
  if (s != DynamicStatus::kOk) return s;
  *out = std::move(f);
  return DynamicStatus::kOk;
}

DynamicStatus DynamicCuckooFilter::Insert(std::string_view key) {
  return InsertHash(KeyHash(key.data(), key.size()));
}
DynamicStatus DynamicCuckooFilter::Erase(std::string_view key) {
  return EraseHash(KeyHash(key.data(), key.size()));
}
bool DynamicCuckooFilter::Contains(std::string_view key) const {
  return ContainsHash(KeyHash(key.data(), key.size()));
}

const DynamicCuckooOptions& DynamicCuckooFilter::options() const { return rep_->options; }

DynamicStatus DynamicCuckooFilter::InsertHash(uint64_t hash) {
  Rep& r = *rep_;
  if (r.growing != nullptr) {
    const DynamicStatus s = r.growing->InsertHash(hash);
    if (s == DynamicStatus::kOk && r.options.checked) ++r.exact[hash];
    return s;
  }
  DynamicCuckooTable* newest = r.current.back();
  const DynamicCuckooTable::Probe probe = newest->ProbeFor(hash);
  newest->Prefetch(probe);
  // Copies of the fingerprint in the newest member's pair (the key's own,
  // or another key's equal fingerprint, which is interchangeable with it):
  // copies are kept and limited there only. A match in an older member
  // alone may be another key's fingerprint: counting copies there would
  // pile unrelated keys onto the few pairs of the small first members, so
  // the key gets a slot of its own in the newest member, as a first copy.
  DynamicCuckooTable::PairSlots pair;
  unsigned copies = newest->CountCopies(probe, &pair);
  if (copies != 0) copies += r.extra.back().Get(DynamicCuckooTable::PairId(probe), probe.fp);
  if (!r.pending.empty() && r.pending.Get(hash, 0) != 0 && ContainsHash(hash)) {
    // A copy an ambiguous Erase left in place is this key's again.
    r.pending.Remove(hash, 0);
    --r.stale;
    r.UpdateSideBytes();
  } else if (copies >= kMaxCopies) {
    return DynamicStatus::kTooManyCopies;
  } else if (copies != 0) {
    r.PlaceCopy(hash, probe, &pair);
  } else {
    // Grow until the entry is placed: a doubling halves the load, so this
    // ends after one step in all but pathological cases (bounded anyway).
    bool placed = false;
    for (int attempt = 0; attempt < 8 && !placed; ++attempt) {
      DynamicCuckooTable* last = r.current.back();
      if (static_cast<double>(last->entries()) <
          r.plans.back().max_load * static_cast<double>(last->capacity())) {
        // The probe and pair read above, unless a growth step replaced the
        // table.
        placed = attempt == 0 ? last->Insert(probe, &r.seq, &pair)
                              : last->Insert(last->ProbeFor(hash), &r.seq);
      }
      if (!placed) {
        const DynamicStatus s = r.Grow();
        if (s != DynamicStatus::kOk) return s;
      }
    }
    if (!placed) return DynamicStatus::kFull;
  }
  r.size.store(r.size.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  if (r.options.checked) ++r.exact[hash];
  return DynamicStatus::kOk;
}

DynamicStatus DynamicCuckooFilter::EraseHash(uint64_t hash) {
  Rep& r = *rep_;
  if (r.options.checked) {
    auto it = r.exact.find(hash);
    if (it == r.exact.end()) return DynamicStatus::kNotFound;
    if (--it->second == 0) r.exact.erase(it);
  }
  if (r.growing != nullptr) return r.growing->EraseHash(hash);
  // Equal fingerprints in one member's bucket pair are interchangeable, so
  // removing any copy there is safe -- but only in the member that holds the
  // key. Matches in two members leave that unknown: keep both (the key's
  // copy goes stale, counted in `pending`: a false-positive cost, never a
  // false negative).
  int match = -1;
  unsigned matches = 0;
  DynamicCuckooTable::Probe probe{};
  for (size_t j = 0; j < r.current.size(); ++j) {
    const DynamicCuckooTable::Probe p = r.current[j]->ProbeFor(hash);
    if (r.current[j]->Contains(p)) {
      match = static_cast<int>(j);
      probe = p;
      ++matches;
    }
  }
  if (matches == 0) return DynamicStatus::kNotFound;  // caller's bug, detected
  if (matches == 1) {
    // An extra count before a slot: the slot is what lookups read.
    if (!r.extra[match].Remove(DynamicCuckooTable::PairId(probe), probe.fp)) {
      r.current[match]->Erase(probe);
    }
  } else {
    r.pending.Add(hash, 0);
    ++r.stale;
    r.UpdateSideBytes();
  }
  r.size.store(r.size.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
  return DynamicStatus::kOk;
}

DynamicStatus DynamicCuckooFilter::ReplaceWith(std::unique_ptr<DynamicCuckooFilter> other) {
  if (other == nullptr || rep_->growing == nullptr || other->rep_->growing == nullptr) {
    return DynamicStatus::kInvalidArgument;
  }
  rep_->options = other->rep_->options;
  rep_->exact = std::move(other->rep_->exact);
  rep_->growing->ReplaceWith(std::move(*other->rep_->growing));
  return DynamicStatus::kOk;
}

bool DynamicCuckooFilter::ContainsHash(uint64_t hash) const {
  if (growing_ != nullptr) return growing_->ContainsHash(hash);
  const Rep& r = *rep_;
  DynamicCuckooTable::Probe probes[kMaxMembers];
  for (;;) {
    const uint64_t s1 = r.seq.load(std::memory_order_acquire);
    const uint32_t n = r.num_members.load(std::memory_order_acquire);
    if (n == 1) {  // the common case: no growth step yet
      const DynamicCuckooTable* m = r.published[0].load(std::memory_order_acquire);
      if (m->Contains(m->ProbeFor(hash))) return true;
      std::atomic_thread_fence(std::memory_order_acquire);
      if (r.seq.load(std::memory_order_relaxed) == s1 && (s1 & 1) == 0) return false;
      continue;
    }
    // All members' buckets are requested before any is read, so their
    // cache misses overlap instead of adding up.
    for (uint32_t j = 0; j < n; ++j) {
      const DynamicCuckooTable* m = r.published[j].load(std::memory_order_acquire);
      probes[j] = m->ProbeFor(hash);
      m->Prefetch(probes[j]);
    }
    for (uint32_t j = n; j-- > 0;) {  // newest (largest) first
      const DynamicCuckooTable* m = r.published[j].load(std::memory_order_acquire);
      if (m->Contains(probes[j])) return true;
    }
    // Not found: valid only if no eviction moved entries meanwhile.
    std::atomic_thread_fence(std::memory_order_acquire);
    const uint64_t s2 = r.seq.load(std::memory_order_relaxed);
    if (s1 == s2 && (s1 & 1) == 0) return false;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

void DynamicCuckooFilter::PrefetchHash(uint64_t hash) const {
  if (growing_ != nullptr) return growing_->PrefetchHash(hash);
  const Rep& r = *rep_;
  const uint32_t n = r.num_members.load(std::memory_order_acquire);
  for (uint32_t j = 0; j < n; ++j) {
    const DynamicCuckooTable* m = r.published[j].load(std::memory_order_acquire);
    m->Prefetch(m->ProbeFor(hash));
  }
}

void DynamicCuckooFilter::ContainsBatch(const std::string_view* keys, size_t n,
                                        bool* results) const {
  ForEachHashGroup<16>(keys, n, [&](const uint64_t* hashes, size_t g, size_t start) {
    for (size_t i = 0; i < g; ++i) PrefetchHash(hashes[i]);
    for (size_t i = 0; i < g; ++i) results[start + i] = ContainsHash(hashes[i]);
  });
}

void DynamicCuckooFilter::InsertHashBatch(const uint64_t* hashes, size_t n,
                                          DynamicStatus* statuses) {
  // Eight ahead: enough to cover a miss to memory at the rate inserts run;
  // more adds nothing (tools/bench/dynamic_bench times batched inserts).
  constexpr size_t kAhead = 8;
  for (size_t i = 0; i < n && i < kAhead; ++i) PrefetchHash(hashes[i]);
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) PrefetchHash(hashes[i + kAhead]);
    statuses[i] = InsertHash(hashes[i]);
  }
}

void DynamicCuckooFilter::InsertBatch(const std::string_view* keys, size_t n,
                                      DynamicStatus* statuses) {
  ForEachHashGroup<64>(keys, n, [&](const uint64_t* hashes, size_t g, size_t start) {
    InsertHashBatch(hashes, g, statuses + start);
  });
}

uint64_t DynamicCuckooFilter::Size() const {
  if (rep_->growing != nullptr) return rep_->growing->Size();
  return rep_->size.load(std::memory_order_relaxed);
}

uint32_t DynamicCuckooFilter::Members() const {
  if (rep_->growing != nullptr) return 1;
  return rep_->num_members.load(std::memory_order_acquire);
}

size_t DynamicCuckooFilter::MemoryBytes() const {
  if (rep_->growing != nullptr) return rep_->growing->MemoryBytes();
  const uint32_t n = rep_->num_members.load(std::memory_order_acquire);
  size_t bytes = rep_->side_bytes.load(std::memory_order_relaxed);
  for (uint32_t j = 0; j < n; ++j) {
    bytes += rep_->published[j].load(std::memory_order_acquire)->MemoryBytes();
  }
  return bytes;
}

double DynamicCuckooFilter::ExpectedFpr() const {
  if (rep_->growing != nullptr) return rep_->growing->ExpectedFpr();
  const uint32_t n = rep_->num_members.load(std::memory_order_acquire);
  double miss_all = 1.0;
  for (uint32_t j = 0; j < n; ++j) {
    const DynamicCuckooTable* m = rep_->published[j].load(std::memory_order_acquire);
    miss_all *= 1.0 - dynamic_cuckoo::TableFpr(*m);
  }
  return 1.0 - miss_all;
}

}  // namespace sstfilter
