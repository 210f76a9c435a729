// A filter's identity and parameters as values: which registered name
// (FilterType) at what bits/key (FilterSpec). Kinds name their own types
// here without reaching the registry's lookups, which are filter_spec.h's.

#pragma once

#include <cstdint>

#include "filters/bloom.h"  // kBloomKind
#include "format/trailer.h"

namespace sstfilter {

// One of the registered names ("bloom", "cuckoo_plain", ...): the kind
// descriptor that plans it, named by the first trailer kind it writes,
// and the name's index among that descriptor's (filter_kind.h). Kinds
// name their own (kCuckooType in cuckoo_kind.h, ...); Bloom, the filter
// every plan may fall back to, is named here.
class FilterType {
 public:
  static const FilterType kBloom;

  constexpr FilterType() : FilterType(kBloomKind, 0) {}
  constexpr FilterType(FilterKind first_kind, int variant)
      : first_kind_(first_kind), variant_(static_cast<uint8_t>(variant)) {}

  constexpr FilterKind first_kind() const { return first_kind_; }
  constexpr int variant() const { return variant_; }

  friend constexpr bool operator==(FilterType a, FilterType b) {
    return a.first_kind_ == b.first_kind_ && a.variant_ == b.variant_;
  }
  friend constexpr bool operator!=(FilterType a, FilterType b) { return !(a == b); }
  // Some order, for ordered containers.
  friend constexpr bool operator<(FilterType a, FilterType b) {
    return a.first_kind_ != b.first_kind_ ? a.first_kind_ < b.first_kind_ : a.variant_ < b.variant_;
  }

 private:
  FilterKind first_kind_;
  uint8_t variant_;
};

inline constexpr FilterType FilterType::kBloom{kBloomKind, 0};

struct FilterSpec {
  FilterType type = FilterType::kBloom;
  double bits_per_key = 10;
};

}  // namespace sstfilter
