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
#include "rocksdb_adapter/construction_charge.h"
#include "rocksdb_adapter/rocksdb_internal.h"

namespace sstfilter {

// Decides a file's filter when it is finished, from its distinct key count
// and its first and last key (keys arrive sorted). With `learn` false it
// only says what it would choose now, and records nothing.
using FilterChooser =
    std::function<FilterSpec(size_t num_keys, const std::string& first_key,
                             const std::string& last_key, bool learn)>;

class BitsBuilderAdapter : public rocksdb::FilterBitsBuilder {
 public:
  // With `verify_after_build`, the hashes of each filter are kept until
  // MaybePostVerify checks that the finished bytes match every one. With
  // `builtin_guard`, every filter ends in the built-in family's guard
  // (builtin_family.h).
  BitsBuilderAdapter(const FilterSpec& spec, bool verify_after_build,
                     bool builtin_guard = false);

  // With a chooser, the first Finish asks it which filter to build (until
  // then the constructor's spec collects the keys and sizes partitions)
  // and later Finishes (partitions) build the same kind. Set before the
  // first AddKey.
  void SetChooser(FilterChooser chooser);

  // Charges the build's memory to the block cache through `charge`
  // (construction_charge.h says what and when); none if null. Set before
  // the first AddKey.
  void SetConstructionCharge(std::unique_ptr<ConstructionCharge> charge);

  // With `fill`, each filter is sized to fill its allocation
  // (optimize_filters_for_memory, memory_rounding.h). Off by default.
  void SetFillAllocation(bool fill) { fill_allocation_ = fill; }

  // Makes every Finish fail the table being built: Finish(buf, status)
  // sets *status to Corruption(why), the one error RocksDB's table builder
  // takes from a filter, and returns no filter; so the table build fails
  // with `why` (SstFileWriter::Finish returns it) rather than writing a
  // file without a filter. For a policy whose options were refused
  // (SstFilterPolicy::Refused) on paths that never validate options.
  void Refuse(std::string why) { refusal_ = std::move(why); }

  void AddKey(const rocksdb::Slice& key) override;
#if SSTFILTER_HAS_ADD_KEY_AND_ALT
  // Both hashes go in; `alt` (a prefix) only when it differs from the
  // previous call's, since whole keys and their prefixes alternate.
  void AddKeyAndAlt(const rocksdb::Slice& key, const rocksdb::Slice& alt) override;
#endif
  size_t EstimateEntriesAdded() override;
  rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf) override;
  rocksdb::Slice Finish(std::unique_ptr<const char[]>* buf, rocksdb::Status* status) override;
  // Corruption if `filter_content` is damaged, or (for the filter just
  // finished) does not match a key that was added.
  rocksdb::Status MaybePostVerify(const rocksdb::Slice& filter_content) override;
  // The largest key count whose filter (built-in guard included) fits in
  // `bytes`; so ApproximateNumEntries(CalculateSpace(n)) >= n.
  size_t ApproximateNumEntries(size_t bytes) override;

  // The bytes Finish would write for `num_entries` distinct keys: exact
  // for every kind and the small form, unless cuckoo placement or fuse
  // peeling fails and the filter falls back to a larger one (rare; never
  // smaller). With a chooser (allocation=monkey), the filter it would
  // choose now; it may choose differently at Finish if the tree changes
  // meanwhile. RocksDB 10.9 on calls this at every data block to estimate
  // the file's size: it costs one size computation, no allocation after
  // the first call. With optimize_filters_for_memory, Finish may write
  // more, up to the end of the allocation this size gets
  // (memory_rounding.h): finding that size costs an allocation and a
  // search, too much for every data block.
  size_t CalculateSpace(size_t num_entries)
#if SSTFILTER_HAS_CALCULATE_SPACE
      override
#endif
      ;
  // Expected FPR of a filter of this builder's kind over `num_entries`
  // keys in `bytes` bytes (built-in guard included).
  double EstimatedFpRate(size_t num_entries, size_t bytes)
#if SSTFILTER_HAS_CALCULATE_SPACE
      override
#endif
      ;

 private:
  // The file's first and last key, for the chooser.
  void NoteKeyRange(const rocksdb::Slice& key);
  // The builder whose sizes CalculateSpace reports, and its spec: core_,
  // or with a chooser not used yet, one of the filter it would choose now.
  const FilterBuilder& SizingBuilder(FilterSpec* spec = nullptr);
  size_t GuardSize() const;
  // Charges the hashes' array as it grows. A refusal is ignored (the
  // hashes are held either way) and not retried until the array grows
  // again: one cache insert per growth, not one per key.
  void ChargeHashes() {
    if (charge_ && core_->hashes().capacity() * sizeof(uint64_t) > hashes_tried_) {
      ChargeHashesSlow();
    }
  }
  void ChargeHashesSlow();
  // Core_'s Finish; filling its allocation if asked; with a charge, the
  // plan's build if the cache makes room for it, else a Bloom filter of
  // the same bits/key.
  void FinishCore(std::string* filter);

  FilterSpec spec_;  // core_'s
  std::unique_ptr<FilterBuilder> core_;
  FilterChooser chooser_;  // empty once used
  FilterSpec sizing_spec_;
  std::unique_ptr<FilterBuilder> sizing_;  // of the chooser's peeked choice
  std::string first_key_, last_key_;  // tracked only with a chooser
  bool has_first_key_ = false;
  std::unique_ptr<ConstructionCharge> charge_;
  bool fill_allocation_ = false;
  size_t hashes_charged_ = 0;  // of the array's bytes, charged
  size_t hashes_tried_ = 0;    // the array's bytes at the last attempt
  std::string refusal_;  // non-empty: every Finish fails (Refuse)
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
