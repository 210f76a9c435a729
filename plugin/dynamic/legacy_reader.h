// Read-only reader of the dynamic cuckoo filter's doubling format
// (versions 1 to 3, docs/format.md): what DynamicCuckooFilter::Load gives
// for a file that no build writes any more.
//
// The file is a list of members (tables probed in turn); member j has
// B = B0 * 2^k buckets of 4 slots of exactly l bits, bit-packed. For a key
// hash x (fractions of 2^64):
//   x * B  = i1 + r, 0 <= r < 1     i1 = FastRange64(x, B)
//   fp     = the first l bits of r
//   i2     = alt(i1) = (T(s) * 2^k + 2 (i1 mod 2^k) - i1) mod B
//            s = the last min(8, l) bits of fp, T(s) = FastRange64(s * C, B0)
// A key matches when fp is in a slot of i1 or i2; fp = 0 lives in a side
// set of bucket indices (the zero set, open addressing from Mix64(i) + 1).
//
// Why a reader and not a conversion to version 5: a version 5 entry holds
// an 8-bit tag mixed from every bit of the key's hash, which picks its
// second bucket; a doubling-table entry keeps only the top bits of the
// hash (bucket and fp), so its tag is unknown and no version 5 entry
// covers its key (docs/design/dynamic_cuckoo.md).
//
// The reader keeps the file's bytes and probes them in place, so Save
// writes back exactly what was loaded. Immutable after Load: any number
// of threads may call its const members.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sstfilter/dynamic_options.h"

namespace sstfilter {
namespace dynamic_cuckoo {

// The member schedule of versions 1 to 3 (legacy_plan.cc): a pure
// function of the options, against which Load checks each member.
namespace legacy {

constexpr unsigned kSlots = 4;
constexpr unsigned kMaxMembers = 48;
constexpr unsigned kMaxStableBits = 8;
constexpr double kMaxLoad = 0.95;  // of a member's slots, at which it grew
// Smallest table base (the writer kept each of a table's independent
// components large enough to fill to ~95%).
constexpr uint64_t kMinBaseBuckets = 128;
// Doublings a member planned when options.expected_max_keys was 0, and
// the least every member after the first planned under kAtLeastLater.
constexpr unsigned kDefaultDoublings = 17;
constexpr unsigned kLaterMemberDoublings = 4;
constexpr uint64_t kMaxBuckets = uint64_t{1} << 39;
// Which doublings later members plan: the first member's count (versions
// 1 and 2) or at least kLaterMemberDoublings (version 3's flag).
enum class LaterMembers { kPlannedOnly, kAtLeastLater };
struct MemberPlan {
  uint64_t base_buckets;
  unsigned max_level;  // doublings planned
  unsigned fp_bits0;   // at level 0; level k has fp_bits0 - k
  unsigned stable_bits;
};
// The options the writer accepted (the plan's precondition).
bool ValidOptions(const DynamicCuckooOptions& options);
MemberPlan PlanMember(const DynamicCuckooOptions& options, unsigned index,
                      uint64_t previous_buckets, LaterMembers later);
// Whether the two LaterMembers rules plan these options alike.
bool LaterRulesAgree(const DynamicCuckooOptions& options);
// Whether base * 2^level buckets are within the writer's 2^39.
bool WithinMaxBuckets(uint64_t base, unsigned level);
// The writer's model FPR of one member.
double MemberFpr(uint64_t buckets, unsigned fp_bits, uint64_t entries, uint64_t zero_entries);

}  // namespace legacy

class LegacyReader {
 public:
  // `file`: a whole saved filter of version 1, 2 or 3, its 4-byte
  // checksum last (the caller checked it). Accepts only what the writer of
  // those versions produced: every size against the options' member
  // schedule and the input's length, every slot and copy count; kCorrupt
  // otherwise. On success *consumed is the bytes read: a checked filter's
  // list of hashes follows, for the caller.
  static DynamicStatus Load(std::string_view file, size_t* consumed,
                            std::unique_ptr<LegacyReader>* out);

  bool ContainsHash(uint64_t hash) const;
  void PrefetchHash(uint64_t hash) const;
  uint64_t Size() const { return size_; }
  size_t MemoryBytes() const { return bytes_.size(); }
  // The writer's model FPR, over the members.
  double ExpectedFpr() const { return fpr_; }
  // As saved; format_version is the file's (1 to 3).
  const DynamicCuckooOptions& options() const { return options_; }
  // The bytes Load read, which Save writes back.
  const std::string& bytes() const { return bytes_; }

 private:
  static constexpr unsigned kSlots = legacy::kSlots;
  struct Member {
    uint64_t base, buckets, level_mask;
    unsigned level, l;
    uint32_t stable_mask;
    size_t words;       // offset of the slot words in bytes_
    uint64_t num_words;
    size_t zero;        // offset of the zero set's cells
    uint64_t zero_cap;  // a power of two
  };
  struct Probe {
    uint64_t i1, i2;
    uint32_t fp;
  };
  LegacyReader() = default;
  uint64_t Word(size_t offset, uint64_t i) const;
  uint32_t Slot(const Member& m, uint64_t bucket, unsigned k) const;
  static uint64_t Alt(const Member& m, uint64_t i, uint32_t fp);
  static Probe ProbeFor(const Member& m, uint64_t hash);
  bool ZeroHas(const Member& m, uint64_t bucket) const;
  bool Contains(const Member& m, const Probe& p) const;
  // Load's check of a member's slots and zero set: false if no writer
  // could have left them; else their occupied slots and zero entries.
  bool Count(const Member& m, uint64_t* slots, uint64_t* zeros) const;
  // Load's body (legacy_format.cc), on a reader that holds the bytes.
  bool Parse(size_t* consumed);

  std::string bytes_;
  DynamicCuckooOptions options_;
  std::vector<Member> members_;
  uint64_t size_ = 0;
  double fpr_ = 0;
};

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
