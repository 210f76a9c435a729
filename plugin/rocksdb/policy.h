// SstFilterPolicy: one rocksdb::FilterPolicy class for every sstfilter
// filter type, configured by a FilterSpec (type + bits/key).

#pragma once

#include <string>

#include <rocksdb/filter_policy.h>

#include "../core/filter_spec.h"
#include "rocksdb_internal.h"

namespace sstfilter {

// The read-compatibility family of every sstfilter policy: the meta block
// is "fullfilter.sstfilter" (or "partitionedfilter.sstfilter").
constexpr char kCompatibilityName[] = "sstfilter";
// Ids are "sstfilter." + FilterTypeName(type).
constexpr char kIdPrefix[] = "sstfilter.";

class SstFilterPolicy : public rocksdb::FilterPolicy {
 public:
  // Requires ValidateFilterSpec(spec).empty(). The one configurable option,
  // "bits_per_key", is validated the same way when set from a string.
  explicit SstFilterPolicy(const FilterSpec& spec);

  // For Customizable::CheckedCast<SstFilterPolicy>(), which needs no RTTI
  // (RocksDB's release builds use -fno-rtti).
  static const char* kClassName() { return "sstfilter.SstFilterPolicy"; }
  bool IsInstanceOf(const std::string& name) const override {
    return name == kClassName() || rocksdb::FilterPolicy::IsInstanceOf(name);
  }

  const char* Name() const override { return name_.c_str(); }
  const char* CompatibilityName() const override { return kCompatibilityName; }

  rocksdb::FilterBitsBuilder* GetBuilderWithContext(
      const rocksdb::FilterBuildingContext& context) const override;
  // Any bytes: content that is not an intact sstfilter filter gives a
  // reader that answers "may match" for every key.
  rocksdb::FilterBitsReader* GetFilterBitsReader(
      const rocksdb::Slice& contents) const override;

  const FilterSpec& spec() const { return spec_; }

 private:
  FilterSpec spec_;
  std::string name_;
};

}  // namespace sstfilter
