// Internal state of DynamicCuckooFilter (sstfilter/dynamic_cuckoo.h),
// shared by its operations (dynamic_cuckoo.cc) and its encoding
// (dynamic_cuckoo_format.cc).
//
// The filter is a chain of DynamicCuckooTable members. Only the newest
// member takes inserts; a member is added when the newest one reaches its
// load limit or cannot place an entry. Members are never moved or freed
// while the filter lives, so a reader needs no reclamation scheme: it reads
// the member count (acquire), then the members.

#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "dynamic_cuckoo_table.h"
#include "sstfilter/dynamic_cuckoo.h"

namespace sstfilter {

namespace dynamic_cuckoo {

constexpr unsigned kMaxMembers = 48;
// Copies of one fingerprint allowed in a bucket pair (over all members):
// half the pair's 8 slots, so a repeated key never fills its pair and
// cuckoo moves of other entries through the pair still succeed.
constexpr unsigned kMaxCopies = kDynamicCuckooMaxCopies;
constexpr double kMaxLoad = 0.95;

// Deterministic member shape from the options: Load checks stored members
// against it.
struct MemberShape {
  uint64_t num_buckets;
  unsigned fp_bits;
};
MemberShape ShapeOf(const DynamicCuckooOptions& options, unsigned index);

// Model FPR of one member: each of the (up to) 8 entries of the probed pair
// matches with probability 1 / (2^f - 1).
double MemberFpr(uint64_t entries, uint64_t num_buckets, unsigned fp_bits);

}  // namespace dynamic_cuckoo

struct DynamicCuckooFilter::Rep {
  DynamicCuckooOptions options;
  // Owned members (writer); readers go through `published`.
  std::vector<std::unique_ptr<DynamicCuckooTable>> owned;
  std::atomic<DynamicCuckooTable*> published[dynamic_cuckoo::kMaxMembers] = {};
  std::atomic<uint32_t> num_members{0};
  // Seqlock: odd while an eviction path is being written.
  std::atomic<uint64_t> seq{0};
  std::atomic<uint64_t> size{0};
  // Entries left in place by an ambiguous Erase (the key matched in more
  // than one member, so the one holding it is unknown): stale, never wrong.
  uint64_t stale = 0;
  // checked mode: exact multiset of inserted hashes (writer only).
  std::unordered_map<uint64_t, uint32_t> exact;

  DynamicStatus AddMember();
};

}  // namespace sstfilter
