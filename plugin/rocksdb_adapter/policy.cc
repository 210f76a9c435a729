#include "rocksdb_adapter/policy.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include <rocksdb/env.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/options_type.h>

#include "allocation/tree_allocation.h"
#include "rocksdb_adapter/bits_adapter.h"
#include "rocksdb_adapter/builtin_family.h"
#include "rocksdb_adapter/memory_rounding.h"
#include "rocksdb_adapter/level_listener.h"
#include "rocksdb_adapter/tsan_handoff.h"

namespace sstfilter {
namespace {

// "bits_per_key" is registered over the whole FilterSpec so that parsing can
// check the value against the range of the policy's type.
rocksdb::Status ParseBitsPerKeyOption(const rocksdb::ConfigOptions&,
                                      const std::string&,
                                      const std::string& value, void* addr) {
  auto* spec = static_cast<FilterSpec*>(addr);
  std::string error;
  if (!ParseBitsPerKey(spec->type, value, &spec->bits_per_key, &error)) {
    return rocksdb::Status::InvalidArgument(error);
  }
  return rocksdb::Status::OK();
}

rocksdb::Status SerializeBitsPerKeyOption(const rocksdb::ConfigOptions&,
                                          const std::string&, const void* addr,
                                          std::string* value) {
  std::ostringstream out;
  out.precision(17);  // round-trips any double
  out << static_cast<const FilterSpec*>(addr)->bits_per_key;
  *value = out.str();
  return rocksdb::Status::OK();
}

bool BitsPerKeyOptionEquals(const rocksdb::ConfigOptions&, const std::string& name,
                            const void* a, const void* b, std::string* mismatch) {
  if (static_cast<const FilterSpec*>(a)->bits_per_key ==
      static_cast<const FilterSpec*>(b)->bits_per_key) {
    return true;
  }
  *mismatch = name;
  return false;
}

const char* CompatName(Compat compat) {
  return compat == Compat::kBuiltin ? "builtin" : "sstfilter";
}

// The options map of one enum-valued option, `option`, whose values are
// `values` written as name_of(value). An unknown name is InvalidArgument
// naming the accepted ones.
template <typename E>
const std::unordered_map<std::string, rocksdb::OptionTypeInfo>* NamedEnumOptionMap(
    const std::string& option, std::vector<E> values, const char* (*name_of)(E)) {
  auto info =
      rocksdb::OptionTypeInfo(0, rocksdb::OptionType::kUnknown,
                              rocksdb::OptionVerificationType::kNormal,
                              rocksdb::OptionTypeFlags::kNone)
          .SetParseFunc([option, values, name_of](const rocksdb::ConfigOptions&,
                                                  const std::string&, const std::string& value,
                                                  void* addr) {
            std::string accepted;
            for (E e : values) {
              if (value == name_of(e)) {
                *static_cast<E*>(addr) = e;
                return rocksdb::Status::OK();
              }
              accepted += (accepted.empty() ? "" : ", ") + std::string(name_of(e));
            }
            return rocksdb::Status::InvalidArgument("sstfilter: " + option + " '" + value +
                                                    "' is not one of: " + accepted);
          })
          .SetSerializeFunc([name_of](const rocksdb::ConfigOptions&, const std::string&,
                                      const void* addr, std::string* value) {
            *value = name_of(*static_cast<const E*>(addr));
            return rocksdb::Status::OK();
          })
          .SetEqualsFunc([](const rocksdb::ConfigOptions&, const std::string& name,
                            const void* a, const void* b, std::string* mismatch) {
            if (*static_cast<const E*>(a) == *static_cast<const E*>(b)) return true;
            *mismatch = name;
            return false;
          });
  return new std::unordered_map<std::string, rocksdb::OptionTypeInfo>{{option, info}};
}

const std::unordered_map<std::string, rocksdb::OptionTypeInfo>& FamilyOptionsMap() {
  static const auto* map =
      NamedEnumOptionMap("compat", std::vector<Compat>{Compat::kSstfilter, Compat::kBuiltin},
                         CompatName);
  return *map;
}

const std::unordered_map<std::string, rocksdb::OptionTypeInfo>& AllocationOptionsMap() {
  static const auto* map = NamedEnumOptionMap(
      "allocation", std::vector<Allocation>{Allocation::kUniform, Allocation::kMonkey},
      AllocationName);
  return *map;
}

const std::unordered_map<std::string, rocksdb::OptionTypeInfo>& OptionsMap() {
  static const auto* map =
      new std::unordered_map<std::string, rocksdb::OptionTypeInfo>{
          {"bits_per_key",
           rocksdb::OptionTypeInfo(0, rocksdb::OptionType::kUnknown,
                                   rocksdb::OptionVerificationType::kNormal,
                                   rocksdb::OptionTypeFlags::kNone)
               .SetParseFunc(ParseBitsPerKeyOption)
               .SetSerializeFunc(SerializeBitsPerKeyOption)
               .SetEqualsFunc(BitsPerKeyOptionEquals)}};
  return *map;
}

}  // namespace

SstFilterPolicy::SstFilterPolicy(const FilterSpec& spec, Compat compat)
    : spec_(spec),
      compat_(compat),
      id_(std::string(kIdPrefix) + FilterTypeName(spec.type)),
      builtin_name_(id_ + kBuiltinNameSuffix) {
  RegisterOptions("sstfilter", &spec_, &OptionsMap());
  RegisterOptions("sstfilter.compat", &compat_, &FamilyOptionsMap());
  RegisterOptions("sstfilter.allocation", &allocation_, &AllocationOptionsMap());
  PublishedBy(this);
}

const char* SstFilterPolicy::CompatibilityName() const {
  return compat_ == Compat::kBuiltin ? BuiltinPolicy()->CompatibilityName()
                                           : kCompatibilityName;
}

SstFilterPolicy* SstFilterPolicy::Refused(const std::string& id, const std::string& error) {
  auto* policy = new SstFilterPolicy(FilterSpec{});
  policy->id_ = id;
  policy->builtin_name_ = id;
  policy->configure_error_ = rocksdb::Status::InvalidArgument(error);
  return policy;
}

rocksdb::Status SstFilterPolicy::ConfigureOptions(
    const rocksdb::ConfigOptions& config_options,
    const std::unordered_map<std::string, std::string>& opts_map,
    std::unordered_map<std::string, std::string>* unused) {
  rocksdb::Status s = rocksdb::FilterPolicy::ConfigureOptions(config_options, opts_map, unused);
  if (s.IsNotFound()) {
    // RocksDB's "Could not find option: : <name>", said as the others are,
    // with the names the registered option maps know.
    const auto maps = {&OptionsMap(), &FamilyOptionsMap(), &AllocationOptionsMap()};
    std::string known, unknown;
    for (const auto* map : maps) {
      for (const auto& entry : *map) known += (known.empty() ? "" : ", ") + entry.first;
    }
    for (const auto& [name, value] : opts_map) {
      const bool registered =
          std::any_of(maps.begin(), maps.end(), [&](const auto* map) { return map->count(name) > 0; });
      if (!registered && name != "id") unknown += (unknown.empty() ? "'" : ", '") + name + "'";
    }
    s = rocksdb::Status::InvalidArgument(id_ + ": unknown option " + unknown + "; known: " + known);
  }
  if (!s.ok()) configure_error_ = s;
  return s;
}

rocksdb::Status SstFilterPolicy::ValidateOptions(
    const rocksdb::DBOptions& db_opts, const rocksdb::ColumnFamilyOptions& cf_opts) const {
  if (!configure_error_.ok()) return rocksdb::Status::InvalidArgument(Unusable());
  return rocksdb::FilterPolicy::ValidateOptions(db_opts, cf_opts);
}

std::string SstFilterPolicy::Unusable() const {
  return "filter_policy " + id_ + " is not usable: " +
         (configure_error_.getState() ? configure_error_.getState() : "");
}

rocksdb::FilterBitsBuilder* SstFilterPolicy::RefusedBuilder(
    const rocksdb::FilterBuildingContext& context) const {
  const std::string why = Unusable();
  if (context.reason == rocksdb::TableFileCreationReason::kRecovery) {
    // RepairDB, the one recovery that runs without validating options,
    // moves a log whose table fails to build out of the DB (to lost/):
    // a table without a filter keeps its keys, and the DB's LOG says why.
    rocksdb::Log(rocksdb::InfoLogLevel::ERROR_LEVEL, context.info_log,
                 "sstfilter: writing a table without a filter: %s", why.c_str());
    return nullptr;
  }
  auto* builder = new BitsBuilderAdapter(spec_, /*verify_after_build=*/false);
  builder->Refuse(why);
  return builder;
}

rocksdb::FilterBitsBuilder* SstFilterPolicy::GetBuilderWithContext(
    const rocksdb::FilterBuildingContext& context) const {
  ReceivedFrom(this);
  if (!configure_error_.ok()) return RefusedBuilder(context);
  auto* builder = new BitsBuilderAdapter(
      spec_,
      context.table_options.detect_filter_construct_corruption,
      /*builtin_guard=*/compat_ == Compat::kBuiltin);
  builder->SetConstructionCharge(ConstructionCharge::For(context.table_options));
  builder->SetFillAllocation(context.table_options.optimize_filters_for_memory &&
                             AllocationClassesKnown());
  // Monkey only where the level is known, in a levelled tree: FIFO files
  // are all alike, and a universal run's size when its filter is built
  // says little of its share while it lives (docs/design/level_allocation.md).
  if (allocation_ == Allocation::kMonkey && context.level_at_creation >= 0 &&
      context.compaction_style == rocksdb::kCompactionStyleLevel) {
    FileFacts facts;
    facts.level = context.level_at_creation;
    facts.is_bottommost = context.is_bottommost;
    // The tree as RocksDB's metadata has it, where a LevelListener posts
    // it; else the level model's estimate from the files built.
    if (auto tree = FindPostedTree(context.info_log, context.column_family_name)) {
      builder->SetChooser([tree, facts, budget = spec_](size_t num_keys, const std::string& first,
                                                        const std::string& last, bool) mutable {
        facts.num_keys = num_keys;
        facts.first_key = first;
        facts.last_key = last;
        return PlanForTree(facts, *tree, budget);
      });
      return builder;
    }
    builder->SetChooser(
        [model = level_model_, facts, budget = spec_](
            size_t num_keys, const std::string& first, const std::string& last,
            bool learn) mutable {
          facts.num_keys = num_keys;
          facts.first_key = first;
          facts.last_key = last;
          return learn ? model->SpecFor(facts, budget) : model->PeekSpecFor(facts, budget);
        });
  }
  return builder;
}

rocksdb::FilterBitsReader* SstFilterPolicy::GetFilterBitsReader(
    const rocksdb::Slice& contents) const {
  ReceivedFrom(this);
  if (compat_ != Compat::kBuiltin) return NewBitsReader(contents);
  // A filter block under the built-in family's name: ours (the guard
  // stripped) or RocksDB's built-in reader for anything else.
  if (HasBuiltinGuard(contents)) return NewBitsReader(WithoutBuiltinGuard(contents));
  return BuiltinPolicy()->GetFilterBitsReader(contents);
}

}  // namespace sstfilter
