// Names and parameters of the filters sstfilter offers, checked once, in
// one place, for every adapter and tool.

#pragma once

#include <memory>
#include <string>
#include <vector>

#include "filters/cuckoo_filter.h"
#include "filters/filter.h"

namespace sstfilter {

enum class FilterType {
  kBloom,              // "bloom": cache-local Bloom
  kCuckoo,             // "cuckoo": cuckoo, variant with the lowest FPR
  kCuckooPlain,        // "cuckoo_plain"
  kCuckooSemiSorted,   // "cuckoo_semisorted"
  kFuse,               // "fuse": binary fuse
  kBurr,               // "burr": bumped ribbon
};

struct FilterSpec {
  FilterType type = FilterType::kBloom;
  double bits_per_key = 10;
};

// "bloom", "cuckoo", "cuckoo_plain", "cuckoo_semisorted", "fuse", "burr".
const char* FilterTypeName(FilterType type);
const std::vector<FilterType>& AllFilterTypes();
bool FilterTypeFromName(const std::string& name, FilterType* type);

// Range of bits/key accepted for `type`.
double MinBitsPerKey(FilterType type);
double MaxBitsPerKey(FilterType type);

// The cuckoo table variant of a cuckoo type (kAuto for any other type).
CuckooVariant CuckooVariantOf(FilterType type);

// Empty if `spec` is usable; otherwise a sentence saying what is wrong
// (NaN, infinite, out of range) and what is accepted.
std::string ValidateFilterSpec(const FilterSpec& spec);

// Parses a bits/key value such as "12" or "9.5" in full (no trailing
// characters); on failure returns false and sets *error.
bool ParseBitsPerKey(const std::string& text, double* value,
                     std::string* error);

// Requires ValidateFilterSpec(spec).empty(). The builder writes the small
// form where it is the more accurate filter (FilterBuilder::AllowSmallForm).
std::unique_ptr<FilterBuilder> NewFilterBuilder(const FilterSpec& spec);

}  // namespace sstfilter
