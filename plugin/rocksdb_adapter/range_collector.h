// The range filter on RocksDB's hooks (sstfilter/range_filter.h): the
// collector that builds each SST's filter from the entries RocksDB gives
// it, and its factory, configurable by name from options strings.

#pragma once

#include <rocksdb/table_properties.h>
#include <sstfilter/range_filter.h>

#include <string>

namespace sstfilter {

class RangeFilterCollectorFactory : public rocksdb::TablePropertiesCollectorFactory {
 public:
  static const char* kClassName() { return "sstfilter.range"; }
  // Requires RangeFilterBitsError(options.bits_per_key).empty().
  explicit RangeFilterCollectorFactory(const RangeFilterOptions& options);

  const char* Name() const override { return kClassName(); }
  rocksdb::TablePropertiesCollector* CreateTablePropertiesCollector(
      rocksdb::TablePropertiesCollectorFactory::Context context) override;

 private:
  RangeFilterOptions options_;
};

// Why `bits_per_key` is not usable, or "" if it is.
std::string RangeFilterBitsError(double bits_per_key);
// Parses `text` as bits_per_key into *bits: "" if usable, else why not.
// One parser for the options map and the "sstfilter.range:<bits>" id.
std::string ParseRangeFilterBits(const std::string& text, double* bits);

}  // namespace sstfilter
