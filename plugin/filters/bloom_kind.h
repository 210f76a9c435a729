// The cache-local Bloom filter's registration (filter_kind.h says what a
// descriptor holds; kinds.h lists it).

#pragma once

#include <string>
#include <vector>

#include "filters/bloom.h"
#include "filters/filter_kind.h"
#include "filters/filter_plan.h"
#include "filters/planner.h"
#include "format/trailer.h"

namespace sstfilter {

struct BloomDescriptor {
  // FilterType::kBloom (filter_spec.h).
  static constexpr FilterTypeInfo kTypes[] = {
      {"bloom", "sstfilter's cache-local Bloom", kMinBitsPerKey, kMaxBitsPerKey}};
  static constexpr FilterKind kKinds[] = {kBloomKind};

  static FilterPlan Plan(int /*variant*/, size_t num_keys, double bits_per_key) {
    return PlanBloom(num_keys, bits_per_key, BloomSizing::kWholeLines);
  }
  static bool Write(const FilterPlan& plan, std::vector<uint64_t>* hashes, std::string* dst) {
    AppendBloomFilter(plan.bloom, *hashes, dst);
    return true;
  }
  // Written straight into *dst; a few small temporaries.
  static size_t WorkingBytes(const FilterPlan& /*plan*/, size_t /*num_keys*/) { return 256; }

  struct Layout {};
  static bool Parse(const Trailer& trailer, const char* /*payload*/, size_t payload_size,
                    Layout* /*layout*/) {
    return trailer.param_b == 0 && BloomReader::ValidShape(payload_size, trailer.param_a);
  }
  template <typename Fn>
  static auto Read(const Trailer& trailer, const char* payload, size_t payload_size,
                   const Layout& /*layout*/, Fn& fn) {
    return fn(BloomReader(payload, payload_size, trailer.param_a));
  }
};

}  // namespace sstfilter
