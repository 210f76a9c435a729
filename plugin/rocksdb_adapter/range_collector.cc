#include "rocksdb_adapter/range_collector.h"

#include <rocksdb/comparator.h>
#include <rocksdb/utilities/options_type.h>

#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "range/range_filter.h"

namespace sstfilter {

const char kRangeFilterProperty[] = "sstfilter.range";

namespace {

constexpr double kMinBits = 4, kMaxBits = 40;

// Every entry's user key goes into the filter, whatever its type (puts,
// merges, deletes, single deletes, entities, blob indexes: each makes the
// key's range worth reading). A range tombstone (its end key is the
// entry's value) covers keys it does not name: the filter keeps it, and
// admits every range it overlaps.
class RangeFilterCollector : public rocksdb::TablePropertiesCollector {
 public:
  explicit RangeFilterCollector(double bits_per_key) : builder_(bits_per_key) {}

  rocksdb::Status AddUserKey(const rocksdb::Slice& key, const rocksdb::Slice& value,
                             rocksdb::EntryType type, rocksdb::SequenceNumber /*seq*/,
                             uint64_t /*file_size*/) override {
    if (type == rocksdb::kEntryRangeDeletion) {
      builder_.AddRangeTombstone(std::string_view(key.data(), key.size()),
                                 std::string_view(value.data(), value.size()));
    } else {
      builder_.AddKey(std::string_view(key.data(), key.size()));
    }
    return rocksdb::Status::OK();
  }

  // RocksDB may ask more than once (BlockBasedTableBuilder's
  // GetTableProperties finishes the collectors again): the same bytes.
  rocksdb::Status Finish(rocksdb::UserCollectedProperties* properties) override {
    if (!finished_) {
      keys_ = builder_.NumKeys();
      filter_ = builder_.Finish();
      finished_ = true;
    }
    (*properties)[kRangeFilterProperty] = filter_;
    return rocksdb::Status::OK();
  }

  rocksdb::UserCollectedProperties GetReadableProperties() const override {
    return {{std::string(kRangeFilterProperty) + ".keys", std::to_string(keys_)}};
  }

  const char* Name() const override { return RangeFilterCollectorFactory::kClassName(); }

 private:
  RangeFilterBuilder builder_;
  bool finished_ = false;
  std::string filter_;
  uint64_t keys_ = 0;
};

rocksdb::Status ParseBits(const rocksdb::ConfigOptions&, const std::string&,
                          const std::string& value, void* addr) {
  const std::string error = ParseRangeFilterBits(value, static_cast<double*>(addr));
  return error.empty() ? rocksdb::Status::OK() : rocksdb::Status::InvalidArgument(error);
}

const std::unordered_map<std::string, rocksdb::OptionTypeInfo>& OptionsMap() {
  static const auto* map = new std::unordered_map<std::string, rocksdb::OptionTypeInfo>{
      {"bits_per_key",
       rocksdb::OptionTypeInfo(0, rocksdb::OptionType::kDouble,
                               rocksdb::OptionVerificationType::kNormal,
                               rocksdb::OptionTypeFlags::kNone)
           .SetParseFunc(ParseBits)}};
  return *map;
}

}  // namespace

std::string RangeFilterBitsError(double bits_per_key) {
  if (bits_per_key >= kMinBits && bits_per_key <= kMaxBits) return "";
  std::ostringstream out;
  out << "sstfilter.range: bits_per_key " << bits_per_key
      << " is out of range; it must be a number from " << kMinBits << " to " << kMaxBits;
  return out.str();
}

std::string ParseRangeFilterBits(const std::string& text, double* bits) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') {
    return "sstfilter.range: bits_per_key '" + text + "' is not a number";
  }
  std::string error = RangeFilterBitsError(value);
  if (error.empty()) *bits = value;
  return error;
}

RangeFilterCollectorFactory::RangeFilterCollectorFactory(const RangeFilterOptions& options)
    : options_(options) {
  RegisterOptions("sstfilter.range", &options_.bits_per_key, &OptionsMap());
}

rocksdb::TablePropertiesCollector* RangeFilterCollectorFactory::CreateTablePropertiesCollector(
    rocksdb::TablePropertiesCollectorFactory::Context /*context*/) {
  return new RangeFilterCollector(options_.bits_per_key);
}

std::shared_ptr<rocksdb::TablePropertiesCollectorFactory> NewRangeFilterCollectorFactory(
    const RangeFilterOptions& options) {
  const std::string error = RangeFilterBitsError(options.bits_per_key);
  if (!error.empty()) throw std::invalid_argument(error);
  return std::make_shared<RangeFilterCollectorFactory>(options);
}

std::function<bool(const rocksdb::TableProperties&)> RangeTableFilter(
    const rocksdb::Slice& lower, const rocksdb::Slice& upper) {
  return [lower = lower.ToString(), upper = upper.ToString()](const rocksdb::TableProperties& p) {
    // The filter orders keys bytewise; any other comparator, user-defined
    // timestamps included, orders them otherwise.
    if (p.comparator_name != rocksdb::BytewiseComparator()->Name()) return true;
    const auto it = p.user_collected_properties.find(kRangeFilterProperty);
    if (it == p.user_collected_properties.end()) return true;
    RangeFilterReader reader;
    return !reader.Parse(it->second) || reader.MayContain(lower, upper);
  };
}

RangeScan::RangeScan(rocksdb::DB* db, const rocksdb::ReadOptions& options,
                     rocksdb::ColumnFamilyHandle* cf, const rocksdb::Slice& lower,
                     const rocksdb::Slice& upper)
    : lower_(lower.ToString()),
      upper_(upper.ToString()),
      lower_slice_(lower_),
      upper_slice_(upper_) {
  rocksdb::ReadOptions ro = options;
  ro.iterate_lower_bound = &lower_slice_;
  ro.iterate_upper_bound = &upper_slice_;
  auto ours = RangeTableFilter(lower_slice_, upper_slice_);
  if (options.table_filter) {
    // The caller's first: it sees every SST RocksDB asks about.
    ro.table_filter = [ours, theirs = options.table_filter](const rocksdb::TableProperties& p) {
      return theirs(p) && ours(p);
    };
  } else {
    ro.table_filter = std::move(ours);
  }
  iterator_.reset(db->NewIterator(ro, cf));
}

}  // namespace sstfilter
