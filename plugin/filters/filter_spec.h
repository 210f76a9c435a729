// Names and parameters of the filters sstfilter offers, checked once, in
// one place, for every adapter and tool. The names are the registered
// kinds' (kinds.h); nothing here lists them.

#pragma once

#include <memory>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "filters/filter_type.h"

namespace sstfilter {

// The registered name of `type` ("bloom", "cuckoo", "cuckoo_plain",
// "cuckoo_semisorted", "fuse"); "unknown" for a type no kind registered.
const char* FilterTypeName(FilterType type);
// One line saying what the type is, for tools' help; "" if unknown.
const char* FilterTypeDescription(FilterType type);
// Every registered type, in registry order (kinds.h).
const std::vector<FilterType>& AllFilterTypes();
bool FilterTypeFromName(const std::string& name, FilterType* type);
// Every registered name after `prefix`, comma separated, in registry
// order ("sstfilter.bloom, sstfilter.cuckoo, ..."): what error messages
// list as known.
std::string FilterTypeNames(const std::string& prefix = "");

// Range of bits/key accepted for `type`.
double MinBitsPerKey(FilterType type);
double MaxBitsPerKey(FilterType type);

// Empty if `spec` is usable; otherwise a sentence saying what is wrong
// (NaN, infinite, out of range) and what is accepted.
std::string ValidateFilterSpec(const FilterSpec& spec);

// The spec of registered type `name` ("bloom", "cuckoo", ...) at
// bits_per_key, or std::invalid_argument with ValidateFilterSpec's sentence
// (or one naming the unknown type): for the engines' convenience
// constructors (NewBloomFilterPolicy and the like), which return a policy,
// not a status.
FilterSpec FilterSpecOrThrow(const std::string& name, double bits_per_key);

// Parses a bits/key value for `type` such as "12" or "9.5" in full (no
// trailing characters) and checks it against type's range. On failure
// returns false and sets *error to a sentence naming the type, the value
// and the range ("sstfilter.cuckoo: bits_per_key 'abc' is not a number;
// it must be a number from 4 to 100").
bool ParseBitsPerKey(FilterType type, const std::string& text, double* value,
                     std::string* error);

// Requires ValidateFilterSpec(spec).empty(). The builder writes what
// PlanFilter (planner.h) plans for spec, and the small form where it is
// the more accurate filter (FilterBuilder::AllowSmallForm).
std::unique_ptr<FilterBuilder> NewFilterBuilder(const FilterSpec& spec);

}  // namespace sstfilter
