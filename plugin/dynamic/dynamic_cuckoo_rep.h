// Internal state of DynamicCuckooFilter (sstfilter/dynamic_cuckoo.h),
// shared by its operations (dynamic_cuckoo.cc) and its encoding
// (dynamic_cuckoo_format.cc).
//
// The filter is one growing DynamicCuckooTable (a member) in all but
// extreme growth: when the newest member is full (load limit reached or an
// entry cannot be placed) it doubles into a new table, entries moving
// without their keys (dynamic_cuckoo_table.h), one fingerprint bit shorter.
// Only when its fingerprints reach the shortest length its FPR budget
// allows (after max_doublings) does a second member start, with its own
// budget: budgets target * 6 / (pi^2 (j+1)^2) sum to the target (or, with
// options.first_member_fpr_share s, s for the first and
// (1 - s) 6 / (pi^2 j^2) for member j >= 1).
//
// Copies: a key's copies all live in one member (the newest one already
// matching it when a copy arrives). A copy takes a free slot of its pair in
// the newest member below its load limit, never displacing another entry;
// otherwise it is counted in that member's `extra` ((pair id, fingerprint)
// -> copies beyond the slots), so that copies never make a table grow or
// fail. An extra count is nonzero only while the pair holds the
// fingerprint in a slot (or the zero set), so lookups, which read slots
// only, still find the key; Erase takes an extra count before a slot.
// An Erase that matches in several members cannot tell which one holds
// the key: it leaves the copy in place and counts it in `pending` (key
// hash -> copies); the next Insert of that key takes it back instead of
// adding one, so a stale copy never makes kTooManyCopies lie.
//
// Readers load the member count, then each member's current table
// (acquire). A replaced table is retired (its memory returned, its
// addresses kept mapped until the filter dies), so a reader still holding
// it reads empty slots and its seqlock check, bumped around the swap,
// sends it to the new table.

#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "dynamic/copy_counts.h"
#include "dynamic/dynamic_cuckoo_table.h"
#include "dynamic/growing_filter.h"
#include "sstfilter/dynamic_cuckoo.h"

namespace sstfilter {

namespace dynamic_cuckoo {

constexpr unsigned kMaxMembers = 48;
// Copies of one fingerprint allowed in a bucket pair (over all members):
// half the pair's 8 slots, so a repeated key never fills its pair and
// cuckoo moves of other entries through the pair still succeed.
constexpr unsigned kMaxCopies = kDynamicCuckooMaxCopies;
constexpr double kMaxLoad = 0.95;
// The share of its load limit from which a member grows for a copy it
// cannot place (Rep::PlaceCopy).
constexpr double kCopyGrowLoad = 0.75;

// Smallest table base: keeps the tables' independent components (B0
// buckets each, dynamic_cuckoo_table.h) large enough to fill to ~95%.
constexpr uint64_t kMinBaseBuckets = 128;
// Doublings a member is planned for when options.expected_max_keys is 0.
constexpr unsigned kDefaultDoublings = 17;
// Doublings every member after the first plans at least, so that members
// grow 16x each, however few the first member planned: a filter that
// outgrows its plan by a factor G has about 1 + log16(G) members. (With
// expected_max_keys = initial_capacity the first member plans none.)
constexpr unsigned kLaterMemberDoublings = 4;
// The filter never plans tables of more than 2^39 buckets (2^41 slots):
// an insert that would need one returns kFull.
constexpr uint64_t kMaxBuckets = uint64_t{1} << 39;
// Whether base * 2^level buckets are within kMaxBuckets (no overflow).
inline bool WithinMaxBuckets(uint64_t base, unsigned level) {
  return level < 40 && base <= (kMaxBuckets >> level);
}

// Which doublings later members plan: kPlannedOnly, the first member's
// count (format versions 1 and 2, kept so that their files load as they
// were saved), or kAtLeastLater, at least kLaterMemberDoublings.
enum class LaterMembers { kPlannedOnly, kAtLeastLater };

// The options Create accepts (PlanMember's precondition).
bool ValidOptions(const DynamicCuckooOptions& options);

// Deterministic member plan from the options and the previous member's
// last bucket count (0 for member 0): Load checks stored members against it.
struct MemberPlan {
  uint64_t base_buckets;
  unsigned max_level;     // doublings planned
  unsigned fp_bits0;      // at level 0; level k has fp_bits0 - k
  unsigned stable_bits;
  double max_load;        // entries / slots at which the member grows
};
MemberPlan PlanMember(const DynamicCuckooOptions& options, unsigned index,
                      uint64_t previous_buckets, LaterMembers later);
// Whether the two LaterMembers rules plan these options alike.
bool LaterRulesAgree(const DynamicCuckooOptions& options);
uint64_t ZeroCapacityFor(uint64_t buckets, unsigned fp_bits);

// Model FPR of one table: each occupied slot of the probed pair matches with
// probability 2^-l; a query with fp 0 may meet a zero-set entry.
double TableFpr(const DynamicCuckooTable& t);

}  // namespace dynamic_cuckoo

struct DynamicCuckooFilter::Rep {
  DynamicCuckooOptions options;
  // Format version 5: the whole filter, and every member below unused.
  // Null: versions 1 to 3.
  std::unique_ptr<dynamic_cuckoo::GrowingFilter> growing;
  dynamic_cuckoo::LaterMembers later = dynamic_cuckoo::LaterMembers::kAtLeastLater;
  // Every table ever made, current and retired (writer); readers go
  // through `published`, the current table of each member.
  std::vector<std::unique_ptr<DynamicCuckooTable>> owned;
  std::vector<DynamicCuckooTable*> current;  // writer's view of `published`
  std::vector<dynamic_cuckoo::MemberPlan> plans;
  std::atomic<DynamicCuckooTable*> published[dynamic_cuckoo::kMaxMembers] = {};
  std::atomic<uint32_t> num_members{0};
  // Seqlock: odd while an eviction path is being written.
  std::atomic<uint64_t> seq{0};
  std::atomic<uint64_t> size{0};
  // Per member (index as `current`): copies held beyond slots, by
  // (PairId, fingerprint).
  std::vector<CopyCounts> extra;
  // Copies left in place by an ambiguous Erase (the key matched in more
  // than one member, so the one holding it is unknown), by key hash:
  // stale, never wrong; the key's next Insert takes one back.
  CopyCounts pending;
  // Sum of pending's counts.
  uint64_t stale = 0;
  // Bytes of `extra` and `pending` (written by the writer, read by
  // MemoryBytes from any thread).
  std::atomic<size_t> side_bytes{0};
  // checked mode: exact multiset of inserted hashes (writer only).
  std::unordered_map<uint64_t, uint32_t> exact;

  // kFull past kMaxMembers or kMaxBuckets, or when the table cannot be
  // allocated; nothing changed then.
  DynamicStatus AddMember();
  // Makes room in the newest member: doubles it, or starts a new member
  // (kFull as AddMember).
  DynamicStatus Grow();
  // Publishes `t` as member j's table (seqlock odd around the swap).
  void Publish(unsigned j, DynamicCuckooTable* t);
  // Places a copy of `hash` in the newest member, whose pair (`probe`, its
  // slots `read`, or null) holds the fingerprint already.
  void PlaceCopy(uint64_t hash, DynamicCuckooTable::Probe probe,
                 const DynamicCuckooTable::PairSlots* read);
  // Recomputes side_bytes after a change of `extra` or `pending`.
  void UpdateSideBytes();
};

}  // namespace sstfilter
