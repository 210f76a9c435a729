// The member schedule and FPR model of the dynamic cuckoo filter's
// doubling format (versions 1 to 3, legacy_reader.h): pure functions of
// the options, as the writer of those versions computed them, for Load's
// checks.

#include <algorithm>
#include <cmath>

#include "dynamic/legacy_reader.h"

namespace sstfilter {
namespace dynamic_cuckoo {
namespace legacy {

bool WithinMaxBuckets(uint64_t base, unsigned level) {
  return level < 40 && base <= (kMaxBuckets >> level);
}

bool ValidOptions(const DynamicCuckooOptions& options) {
  return options.target_fpr > 0.0 && options.target_fpr < 0.5 &&
         options.initial_capacity != 0 && options.initial_capacity <= (uint64_t{1} << 40) &&
         options.expected_max_keys <= (uint64_t{1} << 40) &&
         (options.first_member_fpr_share == 0 ||
          (options.first_member_fpr_share > 0 && options.first_member_fpr_share < 1)) &&
         (options.first_member_max_load == 0 ||
          (options.first_member_max_load >= 0.5 && options.first_member_max_load <= kMaxLoad));
}

MemberPlan PlanMember(const DynamicCuckooOptions& options, unsigned index,
                      uint64_t previous_buckets, LaterMembers later) {
  MemberPlan p;
  const double max_load = index == 0 && options.first_member_max_load > 0
                              ? options.first_member_max_load
                              : kMaxLoad;
  // Member 0 holds initial_capacity at its load limit; a later member
  // starts as large as the member before it ended.
  const double first =
      std::ceil(static_cast<double>(options.initial_capacity) / (kSlots * max_load));
  p.base_buckets = index == 0 ? static_cast<uint64_t>(first) : previous_buckets;
  if (p.base_buckets < kMinBaseBuckets) p.base_buckets = kMinBaseBuckets;
  // FPR budget: target * 6 / (pi^2 (j+1)^2), or with a first-member share s,
  // s for member 0 and (1 - s) * 6 / (pi^2 j^2) for member j >= 1. The
  // shortest fingerprint that meets it at the load limit L: 8 L 2^-l (+1%
  // for the zero set).
  const double s = options.first_member_fpr_share;
  const double budget =
      s <= 0 ? options.target_fpr * 6.0 / (M_PI * M_PI * (index + 1.0) * (index + 1.0))
      : index == 0 ? options.target_fpr * s
                   : options.target_fpr * (1 - s) * 6.0 / (M_PI * M_PI * index * index);
  unsigned l_min = 1;
  while (l_min < 32 &&
         2.0 * kSlots * max_load * 1.01 * std::ldexp(1.0, -static_cast<int>(l_min)) > budget) {
    ++l_min;
  }
  const uint64_t max_keys = options.expected_max_keys != 0
                                ? options.expected_max_keys
                                : options.initial_capacity << kDefaultDoublings;
  unsigned doublings = 0;
  while (doublings < 40 &&
         std::ldexp(static_cast<double>(options.initial_capacity), static_cast<int>(doublings)) <
             static_cast<double>(max_keys)) {
    ++doublings;
  }
  if (index > 0 && later == LaterMembers::kAtLeastLater) {
    doublings = std::max(doublings, kLaterMemberDoublings);
  }
  if (l_min + doublings > 32) doublings = 32 - l_min;
  p.max_level = doublings;
  p.fp_bits0 = l_min + doublings;
  p.stable_bits = std::min(l_min, kMaxStableBits);
  return p;
}

bool LaterRulesAgree(const DynamicCuckooOptions& options) {
  // Member 1's plan is where the rules can first differ; later members
  // differ exactly when it does.
  const uint64_t b = PlanMember(options, 0, 0, LaterMembers::kPlannedOnly).base_buckets;
  return PlanMember(options, 1, b, LaterMembers::kPlannedOnly).max_level ==
         PlanMember(options, 1, b, LaterMembers::kAtLeastLater).max_level;
}

double MemberFpr(uint64_t buckets, unsigned fp_bits, uint64_t entries, uint64_t zero_entries) {
  // Each occupied slot of the probed pair matches with probability 2^-l;
  // a query with fp 0 may meet a zero-set entry.
  const double slots = static_cast<double>(buckets) * kSlots;
  const double load = static_cast<double>(entries - zero_entries) / slots;
  const double p = std::ldexp(1.0, -static_cast<int>(fp_bits));
  const double zero_hit =
      std::min(1.0, 2.0 * static_cast<double>(zero_entries) / static_cast<double>(buckets));
  return 1.0 - std::pow(1.0 - p, 2.0 * kSlots * load) + p * zero_hit;
}

}  // namespace legacy
}  // namespace dynamic_cuckoo
}  // namespace sstfilter
