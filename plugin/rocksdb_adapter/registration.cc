// Public factories and ObjectRegistry registration of the sstfilter
// policies.

#include <sstfilter/sstfilter.h>

#include "rocksdb_adapter/level_listener.h"
#include "rocksdb_adapter/policy.h"
#include "rocksdb_adapter/range_collector.h"

namespace sstfilter {
namespace {

// Parses "<type>" or "sstfilter.<type>" into *spec.
bool TypeFromId(const std::string& id, FilterType* type) {
  const std::string prefix = kIdPrefix;
  const std::string name =
      id.compare(0, prefix.size(), prefix) == 0 ? id.substr(prefix.size()) : id;
  return FilterTypeFromName(name, type);
}

std::string KnownIds() { return FilterTypeNames(kIdPrefix); }

// The spec an id "sstfilter.<type>" or "sstfilter.<type>:<bits_per_key>"
// names; false, with *error saying why, for any other.
bool SpecFromUri(const std::string& uri, FilterSpec* spec, std::string* error) {
  const size_t colon = uri.find(':');
  if (!TypeFromId(uri.substr(0, colon), &spec->type)) {
    *error = "unknown sstfilter policy '" + uri + "'; known: " + KnownIds() +
             " (optionally followed by :<bits_per_key>)";
    return false;
  }
  if (colon != std::string::npos &&
      !ParseBitsPerKey(spec->type, uri.substr(colon + 1), &spec->bits_per_key, error)) {
    return false;
  }
  *error = ValidateFilterSpec(*spec);
  return error->empty();
}

// Factory for every "sstfilter.*" id. A bad one gets a policy that refuses
// (SstFilterPolicy::Refused), not a factory error: RocksDB's table options
// swallow the error and keep no filter, silently.
const rocksdb::FilterPolicy* PolicyFromUri(
    const std::string& uri, std::unique_ptr<const rocksdb::FilterPolicy>* guard,
    std::string* /*errmsg*/) {
  FilterSpec spec;
  std::string error;
  if (SpecFromUri(uri, &spec, &error)) {
    guard->reset(new SstFilterPolicy(spec));
  } else {
    guard->reset(SstFilterPolicy::Refused(uri, error));
  }
  return guard->get();
}

}  // namespace

std::shared_ptr<rocksdb::EventListener> NewLevelListener() {
  return std::make_shared<LevelListener>();
}

std::shared_ptr<const rocksdb::FilterPolicy> NewBloomFilterPolicy(double bits_per_key) {
  return std::make_shared<SstFilterPolicy>(FilterSpecOrThrow("bloom", bits_per_key));
}

std::shared_ptr<const rocksdb::FilterPolicy> NewCuckooFilterPolicy(double bits_per_key) {
  return std::make_shared<SstFilterPolicy>(FilterSpecOrThrow("cuckoo", bits_per_key));
}

rocksdb::Status NewFilterPolicy(const std::string& name, double bits_per_key,
                                std::shared_ptr<const rocksdb::FilterPolicy>* policy) {
  return NewFilterPolicy(name, bits_per_key, Compat::kSstfilter, policy);
}

rocksdb::Status NewFilterPolicy(const std::string& name, double bits_per_key, Compat compat,
                                std::shared_ptr<const rocksdb::FilterPolicy>* policy) {
  FilterSpec spec;
  spec.bits_per_key = bits_per_key;
  if (!TypeFromId(name, &spec.type)) {
    return rocksdb::Status::InvalidArgument("unknown sstfilter policy '" + name +
                                            "'; known: " + KnownIds());
  }
  const std::string error = ValidateFilterSpec(spec);
  if (!error.empty()) return rocksdb::Status::InvalidArgument(error);
  *policy = std::make_shared<SstFilterPolicy>(spec, compat);
  return rocksdb::Status::OK();
}

bool IsSstFilterPolicy(const rocksdb::FilterPolicy* policy) {
  return policy != nullptr && policy->CheckedCast<SstFilterPolicy>() != nullptr;
}

}  // namespace sstfilter

namespace ROCKSDB_NAMESPACE {

int RegisterSstFilter(ObjectLibrary& library, const std::string& /*arg*/) {
  for (sstfilter::FilterType type : sstfilter::AllFilterTypes()) {
    library.AddFactory<const FilterPolicy>(
        ObjectLibrary::PatternEntry(std::string(sstfilter::kIdPrefix) +
                                    sstfilter::FilterTypeName(type))
            .AddNumber(":", /*is_int=*/false),
        sstfilter::PolicyFromUri);
  }
  // Registered last, so it only sees what no exact id matched: a typo such
  // as "sstfilter.cukoo:12" gets a policy that refuses at DB::Open instead
  // of RocksDB's silent null policy.
  library.AddFactory<const FilterPolicy>(
      ObjectLibrary::PatternEntry("sstfilter", /*optional=*/false)
          .AddSeparator(".", /*at_least_one=*/false),
      sstfilter::PolicyFromUri);
  // The listener that tells allocation=monkey the tree (level_listener.h).
  library.AddFactory<EventListener>(
      sstfilter::LevelListener::kClassName(),
      [](const std::string& /*uri*/, std::unique_ptr<EventListener>* guard, std::string*) {
        guard->reset(new sstfilter::LevelListener);
        return guard->get();
      });
  // The range filter's collector (sstfilter/range_filter.h), as
  // "sstfilter.range" or "sstfilter.range:<bits_per_key>".
  library.AddFactory<TablePropertiesCollectorFactory>(
      ObjectLibrary::PatternEntry(sstfilter::RangeFilterCollectorFactory::kClassName())
          .AddNumber(":", /*is_int=*/false),
      [](const std::string& uri, std::unique_ptr<TablePropertiesCollectorFactory>* guard,
         std::string* errmsg) -> TablePropertiesCollectorFactory* {
        sstfilter::RangeFilterOptions options;
        const size_t colon = uri.find(':');
        if (colon != std::string::npos) {
          *errmsg = sstfilter::ParseRangeFilterBits(uri.substr(colon + 1), &options.bits_per_key);
          if (!errmsg->empty()) return nullptr;
        }
        guard->reset(new sstfilter::RangeFilterCollectorFactory(options));
        return guard->get();
      });
  return static_cast<int>(sstfilter::AllFilterTypes().size()) + 3;
}

}  // namespace ROCKSDB_NAMESPACE

extern "C" int RegisterSstFilterPlugin(ROCKSDB_NAMESPACE::ObjectLibrary& library,
                                       const std::string& arg) {
  return ROCKSDB_NAMESPACE::RegisterSstFilter(library, arg);
}
