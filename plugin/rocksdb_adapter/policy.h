// SstFilterPolicy: one rocksdb::FilterPolicy class for every sstfilter
// filter type, configured by a FilterSpec (type + bits/key).

#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include <rocksdb/filter_policy.h>
#include <sstfilter/sstfilter.h>

#include "allocation/level_allocation.h"
#include "allocation/level_model.h"
#include "filters/filter_spec.h"
#include "rocksdb_adapter/rocksdb_internal.h"

namespace sstfilter {

// The read-compatibility family of every sstfilter policy by default: the
// meta block is "fullfilter.sstfilter" (or "partitionedfilter.sstfilter").
constexpr char kCompatibilityName[] = "sstfilter";

// Ids are "sstfilter." + FilterTypeName(type).
constexpr char kIdPrefix[] = "sstfilter.";
// Appended to the id in Name() with compat=builtin.
constexpr char kBuiltinNameSuffix[] = "+builtin";

class SstFilterPolicy : public rocksdb::FilterPolicy {
 public:
  // Requires ValidateFilterSpec(spec).empty(). Options: "bits_per_key",
  // validated the same way when set from a string; "compat", "sstfilter"
  // (the default) or "builtin"; "allocation", "uniform" (the default:
  // bits_per_key for every file) or "monkey" (bits_per_key on average,
  // spread over the levels: LevelModel).
  explicit SstFilterPolicy(const FilterSpec& spec,
                           Compat compat = Compat::kSstfilter);

  // For Customizable::CheckedCast<SstFilterPolicy>(), which needs no RTTI
  // (RocksDB's release builds use -fno-rtti).
  static const char* kClassName() { return "sstfilter.SstFilterPolicy"; }

  // The id, "sstfilter.<type>", by which options strings and OPTIONS files
  // name the policy, whatever its options.
  std::string GetId() const override { return id_; }
  // What RocksDB records in each SST's table properties (filter policy
  // name): the id, plus "+builtin" with compat=builtin, so that the
  // properties tell which family an SST's filter block is in
  // (FilterFamilyOfTable in migrate.h).
  const char* Name() const override {
    return compat_ == Compat::kBuiltin ? builtin_name_.c_str() : id_.c_str();
  }
  bool IsInstanceOf(const std::string& name) const override {
    return name == kClassName() || name == id_ || rocksdb::FilterPolicy::IsInstanceOf(name);
  }
  // "sstfilter", or with compat=builtin the built-in policies' name.
  const char* CompatibilityName() const override;

  // With options that failed to configure (Refused, or a bad option): a
  // builder whose Finish fails the table with Corruption naming the id and
  // the error, on the paths that never call ValidateOptions (SstFileWriter;
  // DB::Open refuses the policy before any table is built). RepairDB's
  // tables (reason kRecovery) get no filter instead, with an error in the
  // DB's LOG: RepairDB would move a log whose table fails out of the DB.
  rocksdb::FilterBitsBuilder* GetBuilderWithContext(
      const rocksdb::FilterBuildingContext& context) const override;
  // Any bytes: content that is not an intact sstfilter filter gives a
  // reader that answers "may match" for every key. With compat=builtin,
  // bytes without the built-in guard go to RocksDB's built-in reader.
  rocksdb::FilterBitsReader* GetFilterBitsReader(
      const rocksdb::Slice& contents) const override;

  // A policy that only refuses: what an options string or OPTIONS file
  // naming a bad sstfilter id (`id`, as written) gets, with `error` saying
  // what is wrong. RocksDB's table options swallow a filter policy's parse
  // errors (filter_policy is parsed "by name") and would leave no filter
  // at all without a word; this policy makes DB::Open fail with `error`
  // instead (ValidateOptions), and any table built under it without that
  // check, SstFileWriter's, fail (GetBuilderWithContext).
  static SstFilterPolicy* Refused(const std::string& id, const std::string& error);

  // The error of a configuration that failed, so that DB::Open refuses a
  // policy with bad options: RocksDB creates the policy before it
  // configures it, and some of its option parsers keep the half-configured
  // object after the error (with defaults where the options were bad).
  rocksdb::Status ValidateOptions(const rocksdb::DBOptions& db_opts,
                                  const rocksdb::ColumnFamilyOptions& cf_opts) const override;

  const FilterSpec& spec() const { return spec_; }
  Compat compat() const { return compat_; }
  Allocation allocation() const { return allocation_; }

 protected:
  // Configures as RocksDB does, remembering a failure (ValidateOptions).
  rocksdb::Status ConfigureOptions(
      const rocksdb::ConfigOptions& config_options,
      const std::unordered_map<std::string, std::string>& opts_map,
      std::unordered_map<std::string, std::string>* unused) override;

 private:
  rocksdb::FilterBitsBuilder* RefusedBuilder(const rocksdb::FilterBuildingContext& context) const;
  // "filter_policy <id> is not usable: <the configuration's error>".
  std::string Unusable() const;

  FilterSpec spec_;
  rocksdb::Status configure_error_;  // OK unless a configuration failed
  Compat compat_;
  Allocation allocation_ = Allocation::kUniform;
  // Learned per policy object and shared with its builders, which outlive
  // no policy but are safest owning what they use (LevelModel is
  // thread-safe).
  std::shared_ptr<LevelModel> level_model_ = std::make_shared<LevelModel>();
  std::string id_;
  std::string builtin_name_;  // id_ + kBuiltinNameSuffix
};

}  // namespace sstfilter
