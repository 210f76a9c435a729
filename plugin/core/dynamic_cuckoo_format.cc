// Save/Load of DynamicCuckooFilter: the byte layout is in docs/format.md
// ("Dynamic cuckoo filter") and pinned by dynamic_cuckoo_test's golden bytes.
// Load accepts only what Save can produce: every field is checked against
// the options' deterministic member schedule and the content checksum, so a
// damaged or foreign input is kCorrupt, never a filter that misses keys.

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "coding.h"
#include "dynamic_cuckoo_rep.h"
#include "hash.h"
#include "sstfilter/dynamic_cuckoo.h"

namespace sstfilter {

namespace {

constexpr char kMagic[4] = {'S', 'F', 'D', 'C'};
// Version 1: the standard member schedule. Version 2: the same, the header
// followed by the first member's FPR share and load limit (options that
// version 1 cannot state; written only when one of them is set).
constexpr uint8_t kVersion = 1;
constexpr uint8_t kVersionFirstMember = 2;
constexpr size_t kHeaderBytes = 48;
constexpr size_t kFirstMemberBytes = 16;
constexpr size_t kMemberHeaderBytes = 40;

uint64_t DoubleBits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof(u));
  return u;
}

double BitsDouble(uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof(d));
  return d;
}

}  // namespace

void DynamicCuckooFilter::Save(std::string* out) const {
  const Rep& r = *rep_;
  const size_t begin = out->size();
  const bool first_member = r.options.first_member_fpr_share != 0 ||
                            r.options.first_member_max_load != 0;
  out->append(kMagic, 4);
  out->push_back(static_cast<char>(first_member ? kVersionFirstMember : kVersion));
  out->push_back(static_cast<char>(r.options.checked ? 1 : 0));
  out->append(2, '\0');
  PutFixed64(out, DoubleBits(r.options.target_fpr));
  PutFixed64(out, r.options.initial_capacity);
  PutFixed64(out, r.options.expected_max_keys);
  PutFixed64(out, r.size.load(std::memory_order_relaxed));
  PutFixed32(out, static_cast<uint32_t>(r.current.size()));
  PutFixed32(out, 0);
  if (first_member) {
    PutFixed64(out, DoubleBits(r.options.first_member_fpr_share));
    PutFixed64(out, DoubleBits(r.options.first_member_max_load));
  }
  for (const DynamicCuckooTable* m : r.current) {
    PutFixed64(out, m->base_buckets());
    out->push_back(static_cast<char>(m->level()));
    out->push_back(static_cast<char>(m->fp_bits()));
    out->push_back(static_cast<char>(m->stable_bits()));
    out->append(5, '\0');
    PutFixed64(out, m->entries());
    PutFixed64(out, m->zero_capacity());
    PutFixed64(out, m->zero_entries());
    for (uint64_t i = 0; i < m->num_words(); ++i) PutFixed64(out, m->Word(i));
    for (uint64_t i = 0; i < m->zero_capacity(); ++i) PutFixed64(out, m->ZeroCell(i));
  }
  PutFixed64(out, r.stale);
  if (r.options.checked) {
    std::vector<std::pair<uint64_t, uint32_t>> sorted(r.exact.begin(), r.exact.end());
    std::sort(sorted.begin(), sorted.end());
    PutFixed64(out, sorted.size());
    for (const auto& e : sorted) {
      PutFixed64(out, e.first);
      PutFixed32(out, e.second);
    }
  }
  PutFixed32(out, ContentChecksum(out->data() + begin, out->size() - begin));
}

DynamicStatus DynamicCuckooFilter::Load(std::string_view bytes,
                                        std::unique_ptr<DynamicCuckooFilter>* out) {
  constexpr DynamicStatus kCorrupt = DynamicStatus::kCorrupt;
  if (bytes.size() < kHeaderBytes + 12) return kCorrupt;
  const size_t body = bytes.size() - 4;
  if (ContentChecksum(bytes.data(), body) != DecodeFixed32(bytes.data() + body)) return kCorrupt;
  ByteReader c(bytes.substr(0, body));
  const char* h;
  c.Take(kHeaderBytes, &h);
  const uint8_t version = static_cast<uint8_t>(h[4]);
  if (std::memcmp(h, kMagic, 4) != 0 || (version != kVersion && version != kVersionFirstMember)) {
    return kCorrupt;
  }
  const uint8_t flags = static_cast<uint8_t>(h[5]);
  if ((flags & ~1u) != 0 || h[6] != 0 || h[7] != 0) return kCorrupt;
  DynamicCuckooOptions options;
  options.target_fpr = BitsDouble(DecodeFixed64(h + 8));
  options.initial_capacity = DecodeFixed64(h + 16);
  options.expected_max_keys = DecodeFixed64(h + 24);
  options.checked = (flags & 1) != 0;
  const uint64_t size = DecodeFixed64(h + 32);
  const uint32_t members = DecodeFixed32(h + 40);
  if (DecodeFixed32(h + 44) != 0) return kCorrupt;
  if (members < 1 || members > dynamic_cuckoo::kMaxMembers) return kCorrupt;
  if (version == kVersionFirstMember) {
    const char* fm;
    if (!c.Take(kFirstMemberBytes, &fm)) return kCorrupt;
    options.first_member_fpr_share = BitsDouble(DecodeFixed64(fm));
    options.first_member_max_load = BitsDouble(DecodeFixed64(fm + 8));
    // Version 2 exists to state one of them (Create checks their ranges).
    if (options.first_member_fpr_share == 0 && options.first_member_max_load == 0) {
      return kCorrupt;
    }
  }
  std::unique_ptr<DynamicCuckooFilter> f;
  if (Create(options, &f) != DynamicStatus::kOk) return kCorrupt;
  Rep& r = *f->rep_;
  uint64_t total_entries = 0;
  for (uint32_t j = 0; j < members; ++j) {
    if (j > 0 && r.AddMember() != DynamicStatus::kOk) return kCorrupt;
    const dynamic_cuckoo::MemberPlan& plan = r.plans[j];
    const char* mh;
    if (!c.Take(kMemberHeaderBytes, &mh)) return kCorrupt;
    const unsigned level = static_cast<uint8_t>(mh[8]);
    const uint64_t zero_cap = DecodeFixed64(mh + 24);
    // Only what the plan allows: the base, a level within the plan (the
    // last level for all but the newest member), the fingerprint length
    // that level has; a zero set Save could write.
    if (DecodeFixed64(mh) != plan.base_buckets || level > plan.max_level ||
        (j + 1 < members && level != plan.max_level) ||
        static_cast<uint8_t>(mh[9]) != plan.fp_bits0 - level ||
        static_cast<uint8_t>(mh[10]) != plan.stable_bits || zero_cap < 16 ||
        (zero_cap & (zero_cap - 1)) != 0) {
      return kCorrupt;
    }
    for (int k = 11; k < 16; ++k) {
      if (mh[k] != 0) return kCorrupt;
    }
    const unsigned l = plan.fp_bits0 - level;
    const uint64_t words = ((plan.base_buckets << level) * DynamicCuckooTable::kSlots * l + 63) / 64;
    // The bytes must be there before anything that size is allocated.
    if (c.left() / 8 < words || c.left() / 8 - words < zero_cap) return kCorrupt;
    DynamicCuckooTable* m = r.current[j];
    if (level > 0 || zero_cap != m->zero_capacity()) {
      // The table Create/AddMember made has another shape: replace it.
      r.owned.push_back(std::make_unique<DynamicCuckooTable>(plan.base_buckets, level, l,
                                                             plan.stable_bits, zero_cap));
      r.Publish(j, r.owned.back().get());
      m->Retire();
      m = r.owned.back().get();
    }
    for (uint64_t i = 0; i < m->num_words(); ++i) {
      uint64_t w = 0;
      c.U64(&w);
      m->SetWord(i, w);
    }
    for (uint64_t i = 0; i < m->zero_capacity(); ++i) {
      uint64_t v = 0;
      c.U64(&v);
      m->SetZeroCell(i, v);
    }
    if (!m->Recount() || m->entries() != DecodeFixed64(mh + 16) ||
        m->zero_entries() != DecodeFixed64(mh + 32)) {
      return kCorrupt;
    }
    total_entries += m->entries();
  }
  uint64_t stale;
  if (!c.U64(&stale)) return kCorrupt;
  // Every counted key has an entry; stale entries are entries no key owns.
  if (size > total_entries || stale > total_entries - size) return kCorrupt;
  r.stale = stale;
  if (options.checked) {
    uint64_t n;
    if (!c.U64(&n) || n > c.left() / 12) return kCorrupt;
    uint64_t copies = 0;
    uint64_t prev = 0;
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t hash = 0;
      uint32_t count = 0;
      if (!c.U64(&hash) || !c.U32(&count)) return kCorrupt;
      if (count == 0 || (i > 0 && hash <= prev)) return kCorrupt;
      // A checked filter holds every key it lists.
      if (!f->ContainsHash(hash)) return kCorrupt;
      r.exact[hash] = count;
      copies += count;
      prev = hash;
    }
    if (copies != size) return kCorrupt;
  }
  if (c.left() != 0) return kCorrupt;
  r.size.store(size, std::memory_order_relaxed);
  *out = std::move(f);
  return DynamicStatus::kOk;
}

}  // namespace sstfilter
