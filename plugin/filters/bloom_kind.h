// The cache-local Bloom filter's registration (filter_kind.h says what a
// descriptor holds; kinds.h lists it), and a builder of Bloom filters
// alone.

#pragma once

#include <string>
#include <vector>

#include "filters/bloom.h"
#include "filters/filter_kind.h"
#include "filters/filter_plan.h"
#include "format/trailer.h"

namespace sstfilter {

struct BloomDescriptor {
  // FilterType::kBloom (filter_type.h).
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

// A builder that writes a Bloom filter of its budget, whatever the key
// count (no small form, no other kind): for tests and tools that measure
// Bloom itself, and for exact byte budgets (BloomSizing::kExactBytes).
class BloomBuilder : public FilterBuilder {
 public:
  // Requires kMinBitsPerKey <= bits_per_key <= kMaxBitsPerKey (the engine
  // adapters validate user input; this is clamped defensively, NaN to the
  // minimum).
  explicit BloomBuilder(double bits_per_key, BloomSizing sizing = BloomSizing::kWholeLines)
      : bits_per_key_(ClampBitsPerKey(bits_per_key, kMinBitsPerKey, kMaxBitsPerKey)),
        sizing_(sizing) {}

  FilterPlan Plan(size_t num_keys) const override {
    return PlanBloom(num_keys, bits_per_key_, sizing_);
  }

 private:
  double bits_per_key_;
  BloomSizing sizing_;
};

}  // namespace sstfilter
