// Save/Load of DynamicCuckooFilter: the byte layout is in docs/format.md
// ("Dynamic cuckoo filter") and pinned by golden bytes
// (tests/dynamic/dynamic_cuckoo_format_test.cc).
// Load accepts only what Save can produce: every field is checked against
// the options' deterministic member schedule and the content checksum, so a
// damaged or foreign input is kCorrupt, never a filter that misses keys.

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dynamic/dynamic_cuckoo_rep.h"
#include "dynamic/growing_filter.h"
#include "format/coding.h"
#include "format/hash.h"
#include "sstfilter/dynamic_cuckoo.h"

namespace sstfilter {

namespace {

constexpr char kMagic[4] = {'S', 'F', 'D', 'C'};
// Version 1: the standard member schedule. Version 2: the same, the header
// followed by the first member's FPR share and load limit (options that
// version 1 cannot state; written only when one of them is set).
// Version 3: the first member's fields always present; flag bit 1 when
// later members plan at least kLaterMemberDoublings doublings
// (LaterMembers::kAtLeastLater); each member's extra copies after its zero
// set, and the pending copies after the stale count. Written only when one
// of these is needed (the plans differ, or a copy count is held), so every
// other filter's bytes are those of versions 1 and 2. A filter loaded from
// version 1 or 2 keeps their schedule.
constexpr uint8_t kVersion = 1;
constexpr uint8_t kVersionFirstMember = 2;
constexpr uint8_t kVersionCopies = 3;
// Version 5: the growing table (dynamic/growing_format.cc).
constexpr uint8_t kVersionGrowing = 5;
constexpr uint8_t kFlagChecked = 1;
constexpr uint8_t kFlagLater = 2;
constexpr size_t kHeaderBytes = 48;
constexpr size_t kFirstMemberBytes = 16;
constexpr size_t kMemberHeaderBytes = 40;

// A member's shape as the schedule allows it, checked against its header
// and the bytes left, before anything is allocated.
struct MemberShape {
  unsigned level;
  uint64_t words;
  uint64_t zero_cap;
};

// Walks the members' headers and sizes (a copy of the reader), checking each
// against the schedule and the input's length. Allocates nothing.
bool CheckShapes(ByteReader c, const DynamicCuckooOptions& options,
                 dynamic_cuckoo::LaterMembers later, uint32_t members, bool copies,
                 std::vector<MemberShape>* shapes) {
  uint64_t previous_buckets = 0;
  for (uint32_t j = 0; j < members; ++j) {
    const dynamic_cuckoo::MemberPlan plan =
        dynamic_cuckoo::PlanMember(options, j, previous_buckets, later);
    const char* mh;
    if (!c.Take(kMemberHeaderBytes, &mh)) return false;
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
      return false;
    }
    for (int k = 11; k < 16; ++k) {
      if (mh[k] != 0) return false;
    }
    // The table's words and zero cells must all be in the input.
    const uint64_t left = c.left() / 8;
    if (!dynamic_cuckoo::WithinMaxBuckets(plan.base_buckets, level) || zero_cap > left) {
      return false;
    }
    const unsigned l = plan.fp_bits0 - level;
    const uint64_t words = ((plan.base_buckets << level) * DynamicCuckooTable::kSlots * l + 63) / 64;
    if (words > left - zero_cap) return false;
    const char* skip;
    c.Take(8 * (words + zero_cap), &skip);
    uint64_t extra = 0;
    if (copies && (!c.U64(&extra) || extra > c.left() / 16 || !c.Take(16 * extra, &skip))) {
      return false;
    }
    shapes->push_back({level, words, zero_cap});
    previous_buckets = plan.base_buckets << level;
  }
  return true;
}

// Checked mode's multiset: N, then N (hash, copies), hashes ascending.
void SaveExact(const std::unordered_map<uint64_t, uint32_t>& exact, std::string* out) {
  std::vector<std::pair<uint64_t, uint32_t>> sorted(exact.begin(), exact.end());
  std::sort(sorted.begin(), sorted.end());
  PutFixed64(out, sorted.size());
  for (const auto& e : sorted) {
    PutFixed64(out, e.first);
    PutFixed32(out, e.second);
  }
}

// What SaveExact wrote, for a filter of `size` keys that holds each.
bool LoadExact(ByteReader* c, const DynamicCuckooFilter& f, uint64_t size,
               std::unordered_map<uint64_t, uint32_t>* exact) {
  uint64_t n;
  if (!c->U64(&n) || n > c->left() / 12) return false;
  uint64_t listed_copies = 0;
  uint64_t prev = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t hash = 0;
    uint32_t count = 0;
    if (!c->U64(&hash) || !c->U32(&count)) return false;
    if (count == 0 || (i > 0 && hash <= prev)) return false;
    // A checked filter holds every key it lists.
    if (!f.ContainsHash(hash)) return false;
    (*exact)[hash] = count;
    listed_copies += count;
    prev = hash;
  }
  return listed_copies == size;
}


}  // namespace

void DynamicCuckooFilter::Save(std::string* out) const {
  const Rep& r = *rep_;
  const size_t begin = out->size();
  if (r.growing != nullptr) {
    r.growing->SaveTo(out);
    if (r.options.checked) SaveExact(r.exact, out);
    PutFixed32(out, ContentChecksum(out->data() + begin, out->size() - begin));
    return;
  }
  const bool first_member = r.options.first_member_fpr_share != 0 ||
                            r.options.first_member_max_load != 0;
  const bool later = r.later == dynamic_cuckoo::LaterMembers::kAtLeastLater &&
                     !dynamic_cuckoo::LaterRulesAgree(r.options);
  bool copies = !r.pending.empty();
  for (const CopyCounts& e : r.extra) copies = copies || !e.empty();
  const uint8_t version = later || copies ? kVersionCopies
                          : first_member  ? kVersionFirstMember
                                          : kVersion;
  out->append(kMagic, 4);
  out->push_back(static_cast<char>(version));
  out->push_back(static_cast<char>((r.options.checked ? kFlagChecked : 0) |
                                   (later ? kFlagLater : 0)));
  out->append(2, '\0');
  PutFixed64(out, DoubleBits(r.options.target_fpr));
  PutFixed64(out, r.options.initial_capacity);
  PutFixed64(out, r.options.expected_max_keys);
  PutFixed64(out, r.size.load(std::memory_order_relaxed));
  PutFixed32(out, static_cast<uint32_t>(r.current.size()));
  PutFixed32(out, 0);
  if (first_member || version == kVersionCopies) {
    PutFixed64(out, DoubleBits(r.options.first_member_fpr_share));
    PutFixed64(out, DoubleBits(r.options.first_member_max_load));
  }
  for (size_t j = 0; j < r.current.size(); ++j) {
    const DynamicCuckooTable* m = r.current[j];
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
    if (version == kVersionCopies) {
      const std::vector<CopyCounts::Entry> extra = r.extra[j].Sorted();
      PutFixed64(out, extra.size());
      for (const CopyCounts::Entry& e : extra) {
        PutFixed64(out, e.a);
        PutFixed32(out, e.b);
        PutFixed32(out, e.count);
      }
    }
  }
  PutFixed64(out, r.stale);
  if (version == kVersionCopies) {
    const std::vector<CopyCounts::Entry> pending = r.pending.Sorted();
    PutFixed64(out, pending.size());
    for (const CopyCounts::Entry& e : pending) {
      PutFixed64(out, e.a);
      PutFixed32(out, e.count);
    }
  }
  if (r.options.checked) SaveExact(r.exact, out);
  PutFixed32(out, ContentChecksum(out->data() + begin, out->size() - begin));
}

DynamicStatus DynamicCuckooFilter::LoadGrowing(std::string_view body,
                                               std::unique_ptr<DynamicCuckooFilter>* out) {
  std::unique_ptr<dynamic_cuckoo::GrowingFilter> g;
  size_t used = 0;
  const DynamicStatus s = dynamic_cuckoo::GrowingFilter::LoadFrom(body, &used, &g);
  if (s != DynamicStatus::kOk) return s;
  std::unique_ptr<DynamicCuckooFilter> f(new DynamicCuckooFilter);
  Rep& r = *f->rep_;
  r.options = g->options();
  r.growing = std::move(g);
  f->growing_ = r.growing.get();
  ByteReader c(body.substr(used));
  if (r.options.checked && !LoadExact(&c, *f, r.growing->Size(), &r.exact)) {
    return DynamicStatus::kCorrupt;
  }
  if (c.left() != 0) return DynamicStatus::kCorrupt;
  *out = std::move(f);
  return DynamicStatus::kOk;
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
  if (std::memcmp(h, kMagic, 4) == 0 && version == kVersionGrowing) {
    return LoadGrowing(bytes.substr(0, body), out);
  }
  if (std::memcmp(h, kMagic, 4) != 0 || version < kVersion || version > kVersionCopies) {
    return kCorrupt;
  }
  const bool copies = version == kVersionCopies;
  const uint8_t flags = static_cast<uint8_t>(h[5]);
  const uint8_t known = copies ? kFlagChecked | kFlagLater : kFlagChecked;
  if ((flags & ~known) != 0 || h[6] != 0 || h[7] != 0) return kCorrupt;
  const dynamic_cuckoo::LaterMembers later = (flags & kFlagLater) != 0
                                                 ? dynamic_cuckoo::LaterMembers::kAtLeastLater
                                                 : dynamic_cuckoo::LaterMembers::kPlannedOnly;
  DynamicCuckooOptions options;
  options.target_fpr = BitsDouble(DecodeFixed64(h + 8));
  options.initial_capacity = DecodeFixed64(h + 16);
  options.expected_max_keys = DecodeFixed64(h + 24);
  options.checked = (flags & kFlagChecked) != 0;
  options.format_version = 3;  // a filter keeps the format it was loaded from
  const uint64_t size = DecodeFixed64(h + 32);
  const uint32_t members = DecodeFixed32(h + 40);
  if (DecodeFixed32(h + 44) != 0) return kCorrupt;
  if (members < 1 || members > dynamic_cuckoo::kMaxMembers) return kCorrupt;
  if (version != kVersion) {
    const char* fm;
    if (!c.Take(kFirstMemberBytes, &fm)) return kCorrupt;
    options.first_member_fpr_share = BitsDouble(DecodeFixed64(fm));
    options.first_member_max_load = BitsDouble(DecodeFixed64(fm + 8));
    // Version 2 exists to state one of them (Create checks their ranges).
    if (version == kVersionFirstMember && options.first_member_fpr_share == 0 &&
        options.first_member_max_load == 0) {
      return kCorrupt;
    }
  }
  // Create's checks, before the schedule is computed from the options.
  if (!dynamic_cuckoo::ValidOptions(options)) return kCorrupt;
  // The flag is set only where the rules differ.
  if ((flags & kFlagLater) != 0 && dynamic_cuckoo::LaterRulesAgree(options)) return kCorrupt;
  // Every size field against the schedule and the input's length, before
  // anything is allocated.
  std::vector<MemberShape> shapes;
  if (!CheckShapes(c, options, later, members, copies, &shapes)) return kCorrupt;
  std::unique_ptr<DynamicCuckooFilter> f;
  if (Create(options, &f) != DynamicStatus::kOk) return kCorrupt;
  Rep& r = *f->rep_;
  r.later = later;
  uint64_t total_entries = 0;
  for (uint32_t j = 0; j < members; ++j) {
    if (j > 0 && r.AddMember() != DynamicStatus::kOk) return kCorrupt;
    const dynamic_cuckoo::MemberPlan& plan = r.plans[j];
    const char* mh;
    if (!c.Take(kMemberHeaderBytes, &mh)) return kCorrupt;  // (checked above)
    const unsigned level = shapes[j].level;
    const uint64_t zero_cap = shapes[j].zero_cap;
    const unsigned l = plan.fp_bits0 - level;
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
    uint64_t extra = 0;
    if (copies && !c.U64(&extra)) return kCorrupt;
    uint64_t prev_a = 0;
    uint32_t prev_b = 0;
    for (uint64_t i = 0; i < extra; ++i) {
      uint64_t pair = 0;
      uint32_t fp = 0, count = 0;
      if (!c.U64(&pair) || !c.U32(&fp) || !c.U32(&count)) return kCorrupt;
      // Sorted, a pair id of this table, a fingerprint of its width that
      // the pair holds in a slot, fewer copies than the maximum.
      if ((i > 0 && (pair < prev_a || (pair == prev_a && fp <= prev_b))) ||
          pair >= m->num_buckets() || (l < 32 && (fp >> l) != 0) || count == 0 ||
          count >= dynamic_cuckoo::kMaxCopies) {
        return kCorrupt;
      }
      const DynamicCuckooTable::Probe p{pair, m->Alt(pair, fp), fp};
      if (DynamicCuckooTable::PairId(p) != pair || !m->Contains(p)) return kCorrupt;
      r.extra[j].Add(pair, fp, count);
      total_entries += count;
      prev_a = pair;
      prev_b = fp;
    }
  }
  uint64_t stale;
  if (!c.U64(&stale)) return kCorrupt;
  // Every counted key has an entry; stale entries are entries no key owns.
  if (size > total_entries || stale > total_entries - size) return kCorrupt;
  r.stale = stale;
  uint64_t pending = 0, pending_copies = 0;
  if (copies && (!c.U64(&pending) || pending > c.left() / 12)) return kCorrupt;
  for (uint64_t i = 0, prev = 0; i < pending; ++i) {
    uint64_t hash = 0;
    uint32_t count = 0;
    if (!c.U64(&hash) || !c.U32(&count)) return kCorrupt;
    // A stale copy is in the tables: its key matches.
    if (count == 0 || (i > 0 && hash <= prev) || !f->ContainsHash(hash)) return kCorrupt;
    r.pending.Add(hash, 0, count);
    pending_copies += count;
    prev = hash;
  }
  if (pending_copies > stale) return kCorrupt;
  // Save writes version 3 only for something versions 1 and 2 cannot hold.
  bool held = pending != 0;
  for (const CopyCounts& e : r.extra) held = held || !e.empty();
  if (copies && (flags & kFlagLater) == 0 && !held) return kCorrupt;
  r.UpdateSideBytes();
  if (options.checked && !LoadExact(&c, *f, size, &r.exact)) return kCorrupt;
  if (c.left() != 0) return kCorrupt;
  r.size.store(size, std::memory_order_relaxed);
  *out = std::move(f);
  return DynamicStatus::kOk;
}

}  // namespace sstfilter
