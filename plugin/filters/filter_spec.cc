#include "filters/filter_spec.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "filters/kinds.h"
#include "filters/planner.h"

namespace sstfilter {
namespace {

struct NamedType {
  FilterType type;
  const FilterTypeInfo* info;
};

template <typename... Ds>
std::vector<NamedType> NamedTypes(KindList<Ds...> kinds) {
  std::vector<NamedType> types;
  AnyKind(kinds, [&](auto tag) {
    using D = typename decltype(tag)::type;
    int variant = 0;
    for (const FilterTypeInfo& info : D::kTypes) {
      types.push_back({FilterType(D::kKinds[0], variant++), &info});
    }
    return false;  // on to the next
  });
  return types;
}

const std::vector<NamedType>& Registered() {
  static const std::vector<NamedType> types = NamedTypes(RegisteredKinds{});
  return types;
}

const FilterTypeInfo* InfoOf(FilterType type) {
  for (const NamedType& t : Registered()) {
    if (t.type == type) return t.info;
  }
  return nullptr;
}

// The planner's builder for every type: Plan is PlanFilter's.
class SpecBuilder final : public FilterBuilder {
 public:
  explicit SpecBuilder(const FilterSpec& spec) : spec_(spec) {}
  FilterPlan Plan(size_t num_keys) const override { return PlanFilter(spec_, num_keys); }

 private:
  FilterSpec spec_;
};

}  // namespace

const char* FilterTypeName(FilterType type) {
  const FilterTypeInfo* info = InfoOf(type);
  return info != nullptr ? info->name : "unknown";
}

const char* FilterTypeDescription(FilterType type) {
  const FilterTypeInfo* info = InfoOf(type);
  return info != nullptr ? info->description : "";
}

const std::vector<FilterType>& AllFilterTypes() {
  static const std::vector<FilterType> types = [] {
    std::vector<FilterType> v;
    for (const NamedType& t : Registered()) v.push_back(t.type);
    return v;
  }();
  return types;
}

bool FilterTypeFromName(const std::string& name, FilterType* type) {
  for (const NamedType& t : Registered()) {
    if (name == t.info->name) {
      *type = t.type;
      return true;
    }
  }
  return false;
}

double MinBitsPerKey(FilterType type) {
  const FilterTypeInfo* info = InfoOf(type);
  return info != nullptr ? info->min_bits_per_key : kMinBitsPerKey;
}

double MaxBitsPerKey(FilterType type) {
  const FilterTypeInfo* info = InfoOf(type);
  return info != nullptr ? info->max_bits_per_key : kMaxBitsPerKey;
}

namespace {

// "sstfilter.<type>: bits_per_key <what> is <problem>; it must be a
// number from <lo> to <hi>".
std::string BitsPerKeyError(FilterType type, const std::string& what, const char* problem) {
  std::ostringstream msg;
  msg << "sstfilter." << FilterTypeName(type) << ": bits_per_key " << what << " is " << problem
      << "; it must be a number from " << MinBitsPerKey(type) << " to " << MaxBitsPerKey(type);
  return msg.str();
}

}  // namespace

std::string FilterTypeNames(const std::string& prefix) {
  std::string names;
  for (FilterType t : AllFilterTypes()) {
    names += (names.empty() ? "" : ", ") + prefix + FilterTypeName(t);
  }
  return names;
}

std::string ValidateFilterSpec(const FilterSpec& spec) {
  const double lo = MinBitsPerKey(spec.type), hi = MaxBitsPerKey(spec.type);
  if (std::isfinite(spec.bits_per_key) && spec.bits_per_key >= lo &&
      spec.bits_per_key <= hi) {
    return "";
  }
  std::ostringstream value;
  value << spec.bits_per_key;
  return BitsPerKeyError(spec.type, value.str(), "out of range");
}

FilterSpec FilterSpecOrThrow(const std::string& name, double bits_per_key) {
  FilterSpec spec{FilterType::kBloom, bits_per_key};
  if (!FilterTypeFromName(name, &spec.type)) {
    throw std::invalid_argument("unknown sstfilter filter type '" + name + "'; known: " +
                                FilterTypeNames());
  }
  const std::string error = ValidateFilterSpec(spec);
  if (!error.empty()) throw std::invalid_argument(error);
  return spec;
}

bool ParseBitsPerKey(FilterType type, const std::string& text, double* value,
                     std::string* error) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (text.empty() || end == begin || *end != '\0' || errno == ERANGE) {
    *error = BitsPerKeyError(type, "'" + text + "'", "not a number");
    return false;
  }
  *error = ValidateFilterSpec(FilterSpec{type, v});
  if (!error->empty()) return false;
  *value = v;
  return true;
}

std::unique_ptr<FilterBuilder> NewFilterBuilder(const FilterSpec& spec) {
  auto builder = std::make_unique<SpecBuilder>(spec);
  builder->AllowSmallForm(true);
  return builder;
}

}  // namespace sstfilter
