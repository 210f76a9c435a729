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
//
// The interface sits below every kind; what it does is defined above
// them: FilterBuilder's members over the planner (filter_builder.cc),
// NewFilterReader and FilterMayMatch over the registered kinds' readers
// (reader_dispatch.cc).

#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/trailer.h"

namespace sstfilter {

struct FilterPlan;  // filter_plan.h

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
  // sequence of hashes always appends the same bytes: what Plan says, or,
  // with the small form allowed (AllowSmallForm), the small form in as
  // many bytes where the planner expects it to be the more accurate
  // (WithSmallForm, planner.h).
  void Finish(std::string* dst);

  // The plan Finish would write now: the small form's where it applies,
  // else Plan(NumHashes()).
  FilterPlan FinishingPlan() const;

  // Finish, writing `plan` (a plan of any kind for NumHashes() keys)
  // instead of FinishingPlan(): how an engine adapter writes a Bloom
  // filter when it cannot afford the memory the planned kind's build
  // needs.
  void FinishWith(const FilterPlan& plan, std::string* dst);

  // Off by default, so that a builder of a kind writes that kind;
  // NewFilterBuilder (filter_spec.h) turns it on for the engine adapters.
  void AllowSmallForm(bool allow) { allow_small_form_ = allow; }

  // The planner's answer (planner.h) for `num_keys` distinct hashes at
  // this builder's budget, the small form left out.
  virtual FilterPlan Plan(size_t num_keys) const = 0;

  // Plan(num_keys)'s size in bytes, trailer included, and expected FPR.
  // The size is exact for Bloom and fuse; for cuckoo exact unless
  // placement needs a fallback, which is rare and grows the table by a few
  // percent.
  size_t FilterSize(size_t num_keys) const;
  double ExpectedFpr(size_t num_keys) const;

  // The largest key count whose filter fits in `bytes`; 0 if none does.
  size_t MaxKeysForSize(size_t bytes) const;

  // Expected FPR of what Finish writes over `num_keys` distinct hashes:
  // the small form's where Finish would write it.
  double FinishedFpr(size_t num_keys) const;

 protected:
  // Writes `plan` over *hashes (no adjacent repeats), which it is free to
  // reorder, change or release: they are discarded afterwards.
  // WritePlannedFilter (planner.h) unless a builder says otherwise.
  virtual void Write(const FilterPlan& plan, std::vector<uint64_t>* hashes,
                     std::string* dst) const;

 private:
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
  virtual void MayMatchBatch(size_t n, const uint64_t* hashes, bool* results) const {
    for (size_t i = 0; i < n; ++i) results[i] = MayMatch(hashes[i]);
  }

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
