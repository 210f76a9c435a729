// The interface every sstfilter filter offers to engine adapters and tools.
//
// Filters are built from 64-bit key hashes (see hash.h), never from keys, so
// the core knows nothing of any engine. A builder is used as
//
//     (AddHash* Finish)*
//
// and starts empty again after each Finish. A reader answers MayMatch over
// bytes it does not own.
//
// The one guarantee that matters: a hash that was added before Finish makes
// MayMatch return true on the finished bytes. Everything doubtful (unknown
// format, damage, truncation) is answered "may match", never "no".

#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/trailer.h"

namespace sstfilter {

class FilterBuilder {
 public:
  FilterBuilder() = default;
  FilterBuilder(const FilterBuilder&) = delete;
  FilterBuilder& operator=(const FilterBuilder&) = delete;
  virtual ~FilterBuilder() = default;

  // Adds one key's hash. A hash equal to the one added just before it is
  // ignored, so a run of identical keys costs one entry. Non-adjacent
  // repeats are harmless: they never cause a false negative and cost at
  // most their share of the sizing.
  void AddHash(uint64_t hash) {
    if (hashes_.empty() || hashes_.back() != hash) hashes_.push_back(hash);
  }

  // Hashes held since the last Finish, adjacent repeats removed.
  size_t NumHashes() const { return hashes_.size(); }
  const std::vector<uint64_t>& hashes() const { return hashes_; }

  // Appends the finished filter (payload then trailer) to *dst, whose
  // earlier contents are left alone, and empties the builder. The same
  // sequence of hashes always appends the same bytes.
  //
  // With the small form allowed (AllowSmallForm), a filter of at most
  // kMaxSmallKeys hashes is written in the small form (small_filter.h),
  // in exactly FilterSize bytes, wherever that is expected to be more
  // accurate than the builder's own filter of those bytes.
  void Finish(std::string* dst) {
    if (!allow_small_form_ || !FinishSmall(dst)) BuildFrom(&hashes_, dst);
    hashes_.clear();
  }

  // Off by default, so that a builder of a kind writes that kind;
  // NewFilterBuilder (filter_spec.h) turns it on for the engine adapters.
  void AllowSmallForm(bool allow) { allow_small_form_ = allow; }

  // Size in bytes, trailer included, of a filter over `num_keys` distinct
  // hashes. Exact for Bloom; for cuckoo exact unless placement needs a
  // fallback, which is rare and grows the table by a few percent.
  virtual size_t FilterSize(size_t num_keys) const = 0;

  // The largest key count whose filter fits in `bytes`; 0 if none does.
  size_t MaxKeysForSize(size_t bytes) const;

  // Expected FPR of the filter (of this builder's kind, not the small
  // form) over `num_keys` distinct hashes.
  virtual double ExpectedFpr(size_t num_keys) const = 0;

  // Expected FPR of what Finish writes over `num_keys` distinct hashes:
  // the small form's where Finish would write it.
  double FinishedFpr(size_t num_keys) const;

  // Appends a filter over `hashes` (no adjacent repeats) without touching
  // the builder's own state; for builders that hand some key counts to
  // another kind (the cuckoo builder's tiny tables to Bloom, the fuse
  // builder's small sets to cuckoo or Bloom).
  void Build(const std::vector<uint64_t>& hashes, std::string* dst) const {
    BuildInto(hashes, dst);
  }

 protected:
  // Builds a filter over `hashes` (no adjacent repeats) and appends it.
  virtual void BuildInto(const std::vector<uint64_t>& hashes,
                         std::string* dst) const = 0;

  // What Finish calls: the same, but free to reorder, change or release
  // *hashes, which are discarded afterwards (a builder that must sort them
  // then needs no copy).
  virtual void BuildFrom(std::vector<uint64_t>* hashes, std::string* dst) const {
    BuildInto(*hashes, dst);
  }

 private:
  // Appends the small form and returns true if it is the better filter.
  bool FinishSmall(std::string* dst) const;

  std::vector<uint64_t> hashes_;
  bool allow_small_form_ = false;
};

// Answers membership queries over a finished filter. Holds pointers into the
// filter bytes, which must outlive the reader and not change. Readers are
// immutable after construction and safe to share across threads.
class FilterReader {
 public:
  FilterReader() = default;
  virtual ~FilterReader() = default;

  // False only if `hash` was certainly not added.
  virtual bool MayMatch(uint64_t hash) const = 0;

  // results[i] = MayMatch(hashes[i]) for i < n. Implementations prefetch
  // all the memory the batch will touch before probing any of it.
  virtual void MayMatchBatch(size_t n, const uint64_t* hashes,
                             bool* results) const;

 protected:
  // Concrete readers are small values: adapters copy them into their own
  // objects (reader_dispatch.h). No slicing: this class is abstract.
  FilterReader(const FilterReader&) = default;
  FilterReader& operator=(const FilterReader&) = default;
};

// Parses `size` bytes at `data` once and returns a reader for them. Content
// that is not an intact sstfilter filter of a known format version (wrong
// marker, unknown kind, bad parameters, wrong length, checksum mismatch;
// for the small form, as far as its 11- or 13-bit check and its bitmap's
// count of ones can tell: docs/format.md) yields a reader that answers
// true for every hash. Never fails, never
// reads outside [data, data + size).
std::unique_ptr<FilterReader> NewFilterReader(const char* data, size_t size);

// One query against filter bytes without keeping a reader: parses, checks
// and probes. For engines (LevelDB) that hand over the bytes on every call.
bool FilterMayMatch(const char* data, size_t size, uint64_t hash);

}  // namespace sstfilter
