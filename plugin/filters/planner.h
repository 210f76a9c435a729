// The filter planner: the one place that decides, for n distinct keys and a
// budget, which filter is written, in what shape, and what FPR to expect.
//
// Each kind plans its own filter (its descriptor's Plan, filter_kind.h),
// falling back, where the budget buys a better filter of a kind it builds
// on, to that kind: a cuckoo budget too small for any table (a handful of
// keys) gets a Bloom filter of the budget, sized to the byte; a fuse
// budget gets a cuckoo (the better variant) or byte-sized Bloom filter
// where either is more accurate (small key counts: the header, whole
// segments and whole fingerprint bits cost more than they save), and
// should every peeling fail, that Bloom filter is written instead
// (plan.bloom). What no kind decides alone is here:
//
// - the plan of a spec, through the registry (PlanFilter);
// - up to kMaxSmallKeys keys, the small form in the same bytes, where it
//   is the more accurate (WithSmallForm);
// - LevelDB's budgets, given in bytes (PlanInBytes);
// - the level allocation's per-level choice between the configured type
//   and Bloom, evaluated on a large file (PlanAtScale).
//
// Builders (filter.h) write what their plan says, so FilterSize and
// ExpectedFpr are the plan's by construction. Plans are pure functions of
// their arguments: the same inputs give the same plan, hence the same
// bytes.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "filters/bits_per_key.h"
#include "filters/filter_plan.h"
#include "filters/filter_type.h"
#include "format/trailer.h"

namespace sstfilter {

// The plan of spec.type at spec.bits_per_key: its kind's (filter_kind.h),
// or for a type no kind registered a Bloom filter's. The small form is not
// considered (WithSmallForm).
FilterPlan PlanFilter(const FilterSpec& spec, size_t num_keys);

// The small form of `num_keys` keys in exactly `bytes` bytes if that is
// expected to be more accurate than `own`; else `own`. Never the small form
// for 0 keys or more than kMaxSmallKeys.
FilterPlan WithSmallForm(const FilterPlan& own, size_t num_keys, size_t bytes);

// For a budget given in bytes, trailer included, as LevelDB's is (its
// Bloom filter's size; leveldb.h): the most accurate of `type`'s filter
// and a byte-sized Bloom filter at the bits/key the budget gives
// `num_keys` keys (rounded down to 1/16 bit), and with `small_form` the
// small form in all `budget_bytes`. Never over the budget, except where
// even kMinBitsPerKey does not fit (then a Bloom filter of that minimum),
// or where cuckoo placement grows the table (the caller then writes
// PlanInBytes(FilterType::kBloom, ..., false)).
FilterPlan PlanInBytes(FilterType type, size_t num_keys, size_t budget_bytes, bool small_form);

// Key count at which the level allocation compares budgets: a typical SST
// file's.
constexpr size_t kScaleKeys = 100000;

// Expected FPR of `spec`'s filter in a large file: a Bloom filter's over
// unbounded lines (BloomExpectedFpr), any other type's at kScaleKeys keys.
double ExpectedFprAtScale(const FilterSpec& spec);

// The more accurate, by ExpectedFprAtScale, of `type` and Bloom at
// `bits_per_key` (`type` on a tie), into *spec and *fpr; false if neither
// accepts that budget (ValidateFilterSpec).
bool PlanAtScale(FilterType type, double bits_per_key, FilterSpec* spec, double* fpr);

// Appends the filter `plan` describes over `hashes` (no adjacent repeats),
// free to reorder or consume *hashes: its kind's writer (filter_kind.h).
// The small form is the caller's to write: AppendSmallFilter may refuse
// (small_filter.h), and the caller then writes the plan WithSmallForm was
// given (given a small-form plan all the same, this writes it, or where it
// is refused a Bloom filter of its bytes).
void WritePlannedFilter(const FilterPlan& plan, std::vector<uint64_t>* hashes, std::string* dst);

// What WritePlannedFilter appends in place of a kind whose Write failed
// (returned false, *hashes as given): the plan's Bloom filter of the
// budget, plan.bloom.
void WriteFailedBuildFallback(const FilterPlan& plan, const std::vector<uint64_t>& hashes,
                              std::string* dst);

// At least the most heap bytes WritePlannedFilter(plan, ...) holds at once
// over `num_keys` hashes, beyond the hashes and the filter it appends: the
// kind's WorkingBytes (filter_kind.h); the small form's sorted copy.
size_t PlanWorkingBytes(const FilterPlan& plan, size_t num_keys);

}  // namespace sstfilter
