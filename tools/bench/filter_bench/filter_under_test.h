// One filter type at one bits/key setting, driven exactly as RocksDB's
// block-based table drives a filter policy: GetBuilderWithContext, AddKey
// for every key, Finish; then GetFilterBitsReader over the finished bytes
// and MayMatch, single or batched. sstfilter's policies and RocksDB's
// built-ins go through the same calls, so their figures are comparable.

#pragma once

#include <memory>
#include <string>
#include <vector>

#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include "key_gen.h"
#include "rocksdb_adapter/rocksdb_internal.h"

namespace filter_bench {

// The default baseline: every ratio filter_bench prints is against it
// unless --baseline names another.
constexpr char kBaselineFilter[] = "rocksdb_bloom";

// One --filters entry: a known filter name, optionally "@bpk" to run it
// at that setting instead of the run's (to compare filters at equal FPR
// rather than equal bits/key).
struct FilterChoice {
  std::string name;
  double bpk = 0;  // 0: the run's --bits_per_key setting

  // "name" or "name@bpk", as given.
  std::string Text() const;
  bool operator==(const FilterChoice& o) const { return name == o.name && bpk == o.bpk; }
};

// A positive, finite number and nothing else (a bits/key setting).
bool ParsePositiveNumber(const std::string& text, double* value);

// Parses "name" or "name@bpk"; false with *error set for an unknown name
// or a bpk that is not a positive number.
bool ParseFilterChoice(const std::string& text, FilterChoice* choice, std::string* error);

// Every name --filters accepts, in the order the tables list them.
const std::vector<std::string>& KnownFilterNames();

// One line per name saying what it is, for the legend.
std::string DescribeKnownFilters();

// A finished filter: owns its bytes and a reader over them. Not copyable
// (the reader points into the bytes); movable.
class BuiltFilter {
 public:
  BuiltFilter(std::unique_ptr<const char[]> bytes, rocksdb::Slice contents,
              std::unique_ptr<rocksdb::FilterBitsReader> reader);

  size_t size() const { return contents_.size(); }
  const rocksdb::Slice& contents() const { return contents_; }

  // Not const: RocksDB's reader interface is not.
  bool MayMatch(const rocksdb::Slice& key) { return reader_->MayMatch(key); }
  void MayMatch(int n, rocksdb::Slice** keys, bool* may_match) {
    reader_->MayMatch(n, keys, may_match);
  }

 private:
  std::unique_ptr<const char[]> bytes_;
  rocksdb::Slice contents_;
  std::unique_ptr<rocksdb::FilterBitsReader> reader_;
};

class FilterUnderTest {
 public:
  // Null, with *error set, for an unknown name or a bits/key the policy
  // rejects.
  static std::unique_ptr<FilterUnderTest> Create(const std::string& name,
                                                 double bits_per_key,
                                                 std::string* error);

  FilterUnderTest(const FilterUnderTest&) = delete;
  FilterUnderTest& operator=(const FilterUnderTest&) = delete;

  const std::string& name() const { return name_; }
  // The setting, not the measured bits/key (see rocksdb_ribbon).
  double bits_per_key() const { return bits_per_key_; }
  const rocksdb::FilterPolicy& policy() const { return *policy_; }

  // Builds a filter over every key of `keys`, in order. Adds to
  // *build_seconds the time from asking for a builder to Finish returning;
  // making the reader is not counted (RocksDB does it when loading the
  // filter block, not when writing the SST).
  BuiltFilter Build(const KeyBatch& keys, double* build_seconds) const;

 private:
  FilterUnderTest(std::string name, double bits_per_key,
                  std::shared_ptr<const rocksdb::FilterPolicy> policy);

  std::string name_;
  double bits_per_key_;
  std::shared_ptr<const rocksdb::FilterPolicy> policy_;
  // Defaults (format_version 5, so NewBloomFilterPolicy gives FastLocalBloom);
  // FilterBuildingContext keeps a reference to it.
  rocksdb::BlockBasedTableOptions table_options_;
};

}  // namespace filter_bench
