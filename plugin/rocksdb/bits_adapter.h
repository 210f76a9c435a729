// RocksDB's FilterBitsBuilder/Reader over sstfilter's core builders and
// readers: keys are hashed here (XXH3, fixed seed); everything else is the
// core's.

#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "filters/filter_spec.h"
#include "rocksdb/rocksdb_internal.h"

namespace sstfilter {

// Decides a file's filter when it is finished, from its distinct key count
// and its first and last key (keys arrive sorted).
using FilterChooser =
    std::function<FilterSpec(size_t num_keys, const std::string& first_key,
                             const std::string& last_key)>;

class BitsBuilderAdapter : public rocksdb::FilterBitsBuilder {
 public:
  // With `verify_after_build`, the hashes of each filter are kept until
  // MaybePostVerify checks that the finished bytes match every one. With
  // `builtin_guard`, every filter ends in the built-in family's guard
  // (builtin_family.h).
  BitsBuilderAdapter(std::unique_ptr<FilterBuilder> core,
                     bool verify_after_build, bool builtin_guard = false);

  // With a chooser, the first Finish asks it which filter to build (until
  // then `core` collects the keys and sizes partitions) and later Finishes
  // (partitions) build the same kind. Set before the first AddKey.
  void SetChooser(FilterChooser chooser, const FilterSpec& initial);

  void AddKey(const rocksdb::Slice& key) override;
#if SSTFILTER_HAS_ADD_KEY_AND_ALT
  // Both hashes go in; `alt` (a prefix) only when it differs from the
  // previous call's, since whole keys and their prefixes alternate.
  void AddKeyAndAlt(const rocksdb::Slice& key, const rocksdb::Slice& alt) override;
#endif
  size_t EstimateEntriesAdded() override;
  using rocksdb::FilterBitsBuilder::Finish;
  rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf) override;
  // Corruption if `filter_content` is damaged, or (for the filter just
  // finished) does not match a key that was added.
  rocksdb::Status MaybePostVerify(const rocksdb::Slice& filter_content) override;
  size_t ApproximateNumEntries(size_t bytes) override;

 private:
  // The file's first and last key, for the chooser.
  void NoteKeyRange(const rocksdb::Slice& key);

  std::unique_ptr<FilterBuilder> core_;
  FilterChooser chooser_;  // empty once used
  FilterSpec initial_spec_;
  std::string first_key_, last_key_;  // tracked only with a chooser
  bool has_first_key_ = false;
  bool verify_after_build_;
  bool builtin_guard_;
  std::vector<uint64_t> finished_hashes_;  // of the last Finish, if verifying
  const char* finished_data_ = nullptr;
#if SSTFILTER_HAS_ADD_KEY_AND_ALT
  bool has_last_alt_ = false;
  uint64_t last_alt_hash_ = 0;
#endif
};

// A FilterBitsReader over the core reader for `contents`. The reader is
// held by its concrete type where it has one, so each query costs one
// virtual call (RocksDB's), not two.
rocksdb::FilterBitsReader* NewBitsReader(const rocksdb::Slice& contents);

}  // namespace sstfilter
