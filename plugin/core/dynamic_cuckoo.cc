#include "sstfilter/dynamic_cuckoo.h"

#include <cmath>

#include "dynamic_cuckoo_rep.h"
#include "hash.h"

namespace sstfilter {

namespace dynamic_cuckoo {

MemberShape ShapeOf(const DynamicCuckooOptions& options, unsigned index) {
  // Member j holds initial_capacity * 2^j keys at the load limit.
  const double keys = static_cast<double>(options.initial_capacity) * std::ldexp(1.0, index);
  MemberShape s;
  s.num_buckets = static_cast<uint64_t>(
      std::ceil(keys / (DynamicCuckooTable::kSlots * kMaxLoad)));
  if (s.num_buckets < 1) s.num_buckets = 1;
  // FPR budget of member j: target * 6 / (pi^2 (j+1)^2); the budgets sum
  // to the target over any number of members.
  const double budget =
      options.target_fpr * 6.0 / (M_PI * M_PI * (index + 1.0) * (index + 1.0));
  const double per_entry = budget / (2.0 * DynamicCuckooTable::kSlots * kMaxLoad);
  // Smallest f with 1 / (2^f - 1) <= per_entry.
  unsigned f = 1;
  while (f < 32 && 1.0 / (std::ldexp(1.0, static_cast<int>(f)) - 1.0) > per_entry) ++f;
  s.fp_bits = f;
  return s;
}

double MemberFpr(uint64_t entries, uint64_t num_buckets, unsigned fp_bits) {
  const double load = static_cast<double>(entries) /
                      (static_cast<double>(num_buckets) * DynamicCuckooTable::kSlots);
  const double p = 1.0 / (std::ldexp(1.0, static_cast<int>(fp_bits)) - 1.0);
  return 1.0 - std::pow(1.0 - p, 2.0 * DynamicCuckooTable::kSlots * load);
}

}  // namespace dynamic_cuckoo

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

DynamicStatus DynamicCuckooFilter::Rep::AddMember() {
  const uint32_t n = num_members.load(std::memory_order_relaxed);
  if (n >= kMaxMembers) return DynamicStatus::kFull;
  const dynamic_cuckoo::MemberShape shape = dynamic_cuckoo::ShapeOf(options, n);
  owned.push_back(std::make_unique<DynamicCuckooTable>(shape.num_buckets, shape.fp_bits));
  published[n].store(owned.back().get(), std::memory_order_release);
  num_members.store(n + 1, std::memory_order_release);
  return DynamicStatus::kOk;
}

DynamicCuckooFilter::DynamicCuckooFilter() : rep_(new Rep) {}
DynamicCuckooFilter::~DynamicCuckooFilter() = default;

DynamicStatus DynamicCuckooFilter::Create(const DynamicCuckooOptions& options,
                                          std::unique_ptr<DynamicCuckooFilter>* out) {
  if (!(options.target_fpr > 0.0 && options.target_fpr < 0.5) ||
      options.initial_capacity == 0 || options.initial_capacity > (1ULL << 40)) {
    return DynamicStatus::kInvalidArgument;
  }
  std::unique_ptr<DynamicCuckooFilter> f(new DynamicCuckooFilter);
  f->rep_->options = options;
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

DynamicStatus DynamicCuckooFilter::InsertHash(uint64_t hash) {
  Rep& r = *rep_;
  DynamicCuckooTable::Probe probes[kMaxMembers];
  const size_t n = r.owned.size();
  for (size_t j = 0; j < n; ++j) {
    probes[j] = r.owned[j]->ProbeFor(hash);
    r.owned[j]->Prefetch(probes[j]);
  }
  unsigned copies = 0;
  for (size_t j = 0; j < n; ++j) copies += r.owned[j]->CountCopies(probes[j]);
  if (copies >= kMaxCopies) return DynamicStatus::kTooManyCopies;
  DynamicCuckooTable* last = r.owned.back().get();
  bool placed = false;
  if (static_cast<double>(last->entries()) < kMaxLoad * static_cast<double>(last->capacity())) {
    placed = last->Insert(last->ProbeFor(hash), &r.seq);
  }
  if (!placed) {
    const DynamicStatus s = r.AddMember();
    if (s != DynamicStatus::kOk) return s;
    last = r.owned.back().get();
    placed = last->Insert(last->ProbeFor(hash), &r.seq);
    if (!placed) return DynamicStatus::kFull;  // unreachable: an empty member
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
  // Equal fingerprints in one member's bucket pair are interchangeable, so
  // removing any copy there is safe -- but only in the member that holds the
  // key. Matches in two members leave that unknown: keep both (the key's
  // entry goes stale, a false-positive cost, never a false negative).
  DynamicCuckooTable* match = nullptr;
  unsigned matches = 0;
  for (const auto& m : r.owned) {
    if (m->Contains(m->ProbeFor(hash))) {
      match = m.get();
      ++matches;
    }
  }
  if (matches == 0) return DynamicStatus::kNotFound;  // caller's bug, detected
  if (matches == 1) {
    match->Erase(match->ProbeFor(hash));
  } else {
    ++r.stale;
  }
  r.size.store(r.size.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
  return DynamicStatus::kOk;
}

bool DynamicCuckooFilter::ContainsHash(uint64_t hash) const {
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

void DynamicCuckooFilter::ContainsBatch(const std::string_view* keys, size_t n,
                                        bool* results) const {
  const Rep& r = *rep_;
  constexpr size_t kGroup = 16;
  uint64_t hashes[kGroup];
  for (size_t start = 0; start < n; start += kGroup) {
    const size_t g = n - start < kGroup ? n - start : kGroup;
    const uint32_t members = r.num_members.load(std::memory_order_acquire);
    for (size_t i = 0; i < g; ++i) {
      hashes[i] = KeyHash(keys[start + i].data(), keys[start + i].size());
      for (uint32_t j = 0; j < members; ++j) {
        const DynamicCuckooTable* m = r.published[j].load(std::memory_order_acquire);
        m->Prefetch(m->ProbeFor(hashes[i]));
      }
    }
    for (size_t i = 0; i < g; ++i) results[start + i] = ContainsHash(hashes[i]);
  }
}

uint64_t DynamicCuckooFilter::Size() const {
  return rep_->size.load(std::memory_order_relaxed);
}

size_t DynamicCuckooFilter::MemoryBytes() const {
  const uint32_t n = rep_->num_members.load(std::memory_order_acquire);
  size_t bytes = 0;
  for (uint32_t j = 0; j < n; ++j) {
    bytes += rep_->published[j].load(std::memory_order_acquire)->MemoryBytes();
  }
  return bytes;
}

double DynamicCuckooFilter::ExpectedFpr() const {
  const uint32_t n = rep_->num_members.load(std::memory_order_acquire);
  double miss_all = 1.0;
  for (uint32_t j = 0; j < n; ++j) {
    const DynamicCuckooTable* m = rep_->published[j].load(std::memory_order_acquire);
    miss_all *= 1.0 - dynamic_cuckoo::MemberFpr(m->entries(), m->num_buckets(), m->fp_bits());
  }
  return 1.0 - miss_all;
}

}  // namespace sstfilter
