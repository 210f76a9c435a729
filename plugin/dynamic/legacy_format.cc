// Load of the dynamic cuckoo filter's doubling format (versions 1 to 3,
// legacy_reader.h); the byte layout is in docs/format.md ("Versions 1 to
// 3"). Accepts only what the writer of those versions produced: every
// field against the options' member schedule and the input's length,
// before anything is read from where it points, so a damaged or foreign
// input is kCorrupt, never a reader that misses keys or reads out of
// bounds.

#include <algorithm>
#include <cstring>

#include "dynamic/file_header.h"
#include "dynamic/legacy_reader.h"
#include "format/coding.h"
#include "format/hash.h"

namespace sstfilter {
namespace dynamic_cuckoo {

namespace {

// Version 1: the standard member schedule. Version 2: the header followed
// by the first member's FPR share and load limit. Version 3: those always,
// flag kFlagLater for LaterMembers::kAtLeastLater, copy counts after each
// member's zero set and pending copies after the stale count.
enum : uint8_t { kVersionFirstMember = 2, kVersionCopies = 3 };
enum : uint8_t { kFlagChecked = 1, kFlagLater = 2 };
// The file header, version 2 and 3's first-member fields, a member's header.
constexpr size_t kHeaderBytes = 48, kFirstMemberBytes = 16, kMemberHeaderBytes = 40;

}  // namespace

DynamicStatus LegacyReader::Load(std::string_view file, size_t* consumed,
                                 std::unique_ptr<LegacyReader>* out) {
  if (file.size() < kHeaderBytes + 4) return DynamicStatus::kCorrupt;
  std::unique_ptr<LegacyReader> r(new LegacyReader);
  r->bytes_.assign(file.data(), file.size());
  if (!r->Parse(consumed)) return DynamicStatus::kCorrupt;
  *out = std::move(r);
  return DynamicStatus::kOk;
}

bool LegacyReader::Parse(size_t* consumed) {
  const std::string_view body = std::string_view(bytes_).substr(0, bytes_.size() - 4);
  ByteReader c(body);
  const char* h = nullptr;
  if (!c.Take(kHeaderBytes, &h)) return false;
  const uint8_t version = static_cast<uint8_t>(h[4]);
  if (std::memcmp(h, kFileMagic, 4) != 0 || version < 1 || version > kVersionCopies) return false;
  const bool copies = version == kVersionCopies;
  const uint8_t flags = static_cast<uint8_t>(h[5]);
  const uint8_t known = copies ? kFlagChecked | kFlagLater : kFlagChecked;
  if ((flags & ~known) != 0 || h[6] != 0 || h[7] != 0) return false;
  const legacy::LaterMembers later = (flags & kFlagLater) != 0
                                         ? legacy::LaterMembers::kAtLeastLater
                                         : legacy::LaterMembers::kPlannedOnly;
  options_.target_fpr = BitsDouble(DecodeFixed64(h + 8));
  options_.initial_capacity = DecodeFixed64(h + 16);
  options_.expected_max_keys = DecodeFixed64(h + 24);
  options_.checked = (flags & kFlagChecked) != 0;
  options_.format_version = version;
  const uint64_t size = DecodeFixed64(h + 32);
  const uint32_t members = DecodeFixed32(h + 40);
  if (DecodeFixed32(h + 44) != 0 || members < 1 || members > legacy::kMaxMembers) return false;
  if (version != 1) {
    const char* fm;
    if (!c.Take(kFirstMemberBytes, &fm)) return false;
    options_.first_member_fpr_share = BitsDouble(DecodeFixed64(fm));
    options_.first_member_max_load = BitsDouble(DecodeFixed64(fm + 8));
    // Version 2 exists to state one of them.
    if (version == kVersionFirstMember && options_.first_member_fpr_share == 0 &&
        options_.first_member_max_load == 0) {
      return false;
    }
  }
  // The writer's checks, before the schedule is computed from the options;
  // the flag is set only where the rules differ.
  if (!legacy::ValidOptions(options_)) return false;
  if ((flags & kFlagLater) != 0 && legacy::LaterRulesAgree(options_)) return false;

  uint64_t previous_buckets = 0, total_entries = 0;
  double miss_all = 1.0;
  bool held = false;  // a copy count or pending copy (what version 3 is for)
  for (uint32_t j = 0; j < members; ++j) {
    const legacy::MemberPlan plan = legacy::PlanMember(options_, j, previous_buckets, later);
    const char* mh;
    if (!c.Take(kMemberHeaderBytes, &mh)) return false;
    Member m;
    m.level = static_cast<uint8_t>(mh[8]);
    m.zero_cap = DecodeFixed64(mh + 24);
    // Only what the plan allows: its base, a level within it (the last for
    // all but the newest member), that level's fingerprint length, a zero
    // set the writer could make.
    if (DecodeFixed64(mh) != plan.base_buckets || m.level > plan.max_level ||
        (j + 1 < members && m.level != plan.max_level) ||
        static_cast<uint8_t>(mh[9]) != plan.fp_bits0 - m.level ||
        static_cast<uint8_t>(mh[10]) != plan.stable_bits || m.zero_cap < 16 ||
        (m.zero_cap & (m.zero_cap - 1)) != 0 ||
        !legacy::WithinMaxBuckets(plan.base_buckets, m.level)) {
      return false;
    }
    for (int k = 11; k < 16; ++k) {
      if (mh[k] != 0) return false;
    }
    m.base = plan.base_buckets;
    m.buckets = plan.base_buckets << m.level;
    m.level_mask = (uint64_t{1} << m.level) - 1;
    m.l = plan.fp_bits0 - m.level;
    m.stable_mask = (1U << plan.stable_bits) - 1;  // stable_bits <= 8
    // The words and zero cells must all be in the input.
    const uint64_t left = c.left() / 8;
    m.num_words = (m.buckets * kSlots * m.l + 63) / 64;
    if (m.zero_cap > left || m.num_words > left - m.zero_cap) return false;
    const char* words = nullptr;
    const char* zero = nullptr;
    if (!c.Take(8 * m.num_words, &words) || !c.Take(8 * m.zero_cap, &zero)) return false;
    m.words = static_cast<size_t>(words - bytes_.data());
    m.zero = static_cast<size_t>(zero - bytes_.data());
    uint64_t slots = 0, zeros = 0;
    if (!Count(m, &slots, &zeros) || slots + zeros != DecodeFixed64(mh + 16) ||
        zeros != DecodeFixed64(mh + 32)) {
      return false;
    }
    total_entries += slots + zeros;
    miss_all *= 1.0 - legacy::MemberFpr(m.buckets, m.l, slots + zeros, zeros);
    uint64_t extra = 0;
    if (copies && (!c.U64(&extra) || extra > c.left() / 16)) return false;
    for (uint64_t i = 0, prev_pair = 0, prev_fp = 0; i < extra; ++i) {
      uint64_t pair = 0;
      uint32_t fp = 0, count = 0;
      c.U64(&pair);
      c.U32(&fp);
      c.U32(&count);
      // Sorted, a pair of this member named by its lower bucket, holding
      // the fingerprint (of the member's width) in a slot; fewer copies
      // than the maximum.
      if ((i > 0 && (pair < prev_pair || (pair == prev_pair && fp <= prev_fp))) ||
          pair >= m.buckets || (m.l < 32 && (fp >> m.l) != 0) || count == 0 ||
          count >= kDynamicCuckooMaxCopies) {
        return false;
      }
      const Probe q{pair, Alt(m, pair, fp), fp};
      if (std::min(q.i1, q.i2) != pair || !Contains(m, q)) return false;
      total_entries += count;
      held = true;
      prev_pair = pair;
      prev_fp = fp;
    }
    members_.push_back(m);
    previous_buckets = m.buckets;
  }
  // Every counted key has an entry; stale entries are entries no key owns.
  uint64_t stale = 0;
  if (!c.U64(&stale) || size > total_entries || stale > total_entries - size) return false;
  uint64_t pending = 0, pending_copies = 0;
  if (copies && (!c.U64(&pending) || pending > c.left() / 12)) return false;
  for (uint64_t i = 0, prev = 0; i < pending; ++i) {
    uint64_t hash = 0;
    uint32_t count = 0;
    c.U64(&hash);
    c.U32(&count);
    // A stale copy is in the tables: its key matches.
    if (count == 0 || (i > 0 && hash <= prev) || !ContainsHash(hash)) return false;
    pending_copies += count;
    held = true;
    prev = hash;
  }
  if (pending_copies > stale) return false;
  // The writer chose version 3 only for what versions 1 and 2 cannot hold.
  if (copies && (flags & kFlagLater) == 0 && !held) return false;
  size_ = size;
  fpr_ = 1.0 - miss_all;
  *consumed = body.size() - c.left();
  return true;
}

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
