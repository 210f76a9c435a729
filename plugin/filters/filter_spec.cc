#include "filters/filter_spec.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "filters/bloom.h"
#include "filters/burr_filter.h"
#include "filters/cuckoo_filter.h"
#include "filters/fuse_filter.h"

namespace sstfilter {

const char* FilterTypeName(FilterType type) {
  switch (type) {
    case FilterType::kBloom:
      return "bloom";
    case FilterType::kCuckoo:
      return "cuckoo";
    case FilterType::kCuckooPlain:
      return "cuckoo_plain";
    case FilterType::kCuckooSemiSorted:
      return "cuckoo_semisorted";
    case FilterType::kFuse:
      return "fuse";
    case FilterType::kBurr:
      return "burr";
  }
  return "unknown";
}

const std::vector<FilterType>& AllFilterTypes() {
  static const std::vector<FilterType> types = {
      FilterType::kBloom, FilterType::kCuckoo, FilterType::kCuckooPlain,
      FilterType::kCuckooSemiSorted, FilterType::kFuse, FilterType::kBurr};
  return types;
}

bool FilterTypeFromName(const std::string& name, FilterType* type) {
  for (FilterType t : AllFilterTypes()) {
    if (name == FilterTypeName(t)) {
      *type = t;
      return true;
    }
  }
  return false;
}

double MinBitsPerKey(FilterType type) {
  switch (type) {
    case FilterType::kBloom:
      return kMinBitsPerKey;
    case FilterType::kCuckooPlain:
      return kMinPlainCuckooBitsPerKey;
    case FilterType::kFuse:
      return kMinFuseBitsPerKey;
    case FilterType::kBurr:
      return kMinBurrBitsPerKey;
    default:
      return kMinCuckooBitsPerKey;
  }
}

double MaxBitsPerKey(FilterType) { return kMaxBitsPerKey; }

std::string ValidateFilterSpec(const FilterSpec& spec) {
  const double lo = MinBitsPerKey(spec.type), hi = MaxBitsPerKey(spec.type);
  if (std::isfinite(spec.bits_per_key) && spec.bits_per_key >= lo &&
      spec.bits_per_key <= hi) {
    return "";
  }
  std::ostringstream msg;
  msg << "sstfilter." << FilterTypeName(spec.type) << ": bits_per_key "
      << spec.bits_per_key << " is out of range; it must be a number from "
      << lo << " to " << hi;
  return msg.str();
}

bool ParseBitsPerKey(const std::string& text, double* value,
                     std::string* error) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (text.empty() || end == begin || *end != '\0' || errno == ERANGE) {
    *error = "bits_per_key '" + text + "' is not a number";
    return false;
  }
  *value = v;
  return true;
}

CuckooVariant CuckooVariantOf(FilterType type) {
  switch (type) {
    case FilterType::kCuckooPlain:
      return CuckooVariant::kPlain;
    case FilterType::kCuckooSemiSorted:
      return CuckooVariant::kSemiSorted;
    default:
      return CuckooVariant::kAuto;
  }
}

namespace {

std::unique_ptr<FilterBuilder> NewBuilderOfKind(const FilterSpec& spec) {
  switch (spec.type) {
    case FilterType::kBloom:
      return std::make_unique<BloomBuilder>(spec.bits_per_key);
    case FilterType::kCuckoo:
    case FilterType::kCuckooPlain:
    case FilterType::kCuckooSemiSorted:
      return std::make_unique<CuckooBuilder>(spec.bits_per_key, CuckooVariantOf(spec.type));
    case FilterType::kFuse:
      return std::make_unique<FuseBuilder>(spec.bits_per_key);
    case FilterType::kBurr:
      return std::make_unique<BurrBuilder>(spec.bits_per_key);
  }
  return nullptr;
}

}  // namespace

std::unique_ptr<FilterBuilder> NewFilterBuilder(const FilterSpec& spec) {
  std::unique_ptr<FilterBuilder> builder = NewBuilderOfKind(spec);
  if (builder) builder->AllowSmallForm(true);
  return builder;
}

}  // namespace sstfilter
