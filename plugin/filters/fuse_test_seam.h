// For tests only: the fuse filter with its failure paths forced. Only
// tests include this header, and fuse_builder.cc, which defines the one
// function it declares.

#pragma once

#include <string>
#include <vector>

#include "filters/filter.h"
#include "filters/fuse_filter.h"
#include "filters/fuse_kind.h"
#include "filters/planner.h"

namespace sstfilter {

// AppendFuseFilter with the first `failed_attempts` peelings made to fail,
// as if the hypergraph had a core, so the retry and fallback paths run;
// *attempts gets the peelings made.
bool AppendFuseFilterFailingFirst(const FuseShape& shape, std::vector<uint64_t>* keys,
                                  int failed_attempts, int* attempts, std::string* dst);

// `failed_attempts` as above. A `shape` with fp_bits > 0 is written
// instead of ChooseFuseShape's (the caller keeps it within the budget), so
// tests can pin the bytes of shapes the builder no longer chooses, as
// older versions wrote them.
struct FuseTestHooks {
  int failed_attempts = 0;
  FuseShape shape;
};

// FuseBuilder with hooks, and the peelings its last Finish made.
class FuseTestBuilder final : public FilterBuilder {
 public:
  explicit FuseTestBuilder(double bits_per_key, FuseTestHooks hooks = {})
      : bits_per_key_(ClampBitsPerKey(bits_per_key, kMinFuseBitsPerKey, kMaxBitsPerKey)),
        hooks_(hooks) {}

  FilterPlan Plan(size_t num_keys) const override {
    if (hooks_.shape.fp_bits > 0) return FuseDescriptor::PlanOf(hooks_.shape, num_keys, bits_per_key_);
    return FuseDescriptor::Plan(0, num_keys, bits_per_key_);
  }

  // Peeling attempts the last Finish made: 0 if it wrote a cuckoo or Bloom
  // filter for the key count, kMaxFuseAttempts if it wrote a Bloom filter
  // after every attempt failed.
  int last_attempts() const { return last_attempts_; }

 protected:
  // FuseDescriptor::Write with the hooks' failures.
  void Write(const FilterPlan& plan, std::vector<uint64_t>* hashes,
             std::string* dst) const override {
    last_attempts_ = 0;
    if (plan.kind != kFuseKind) return WritePlannedFilter(plan, hashes, dst);
    if (!AppendFuseFilterFailingFirst(plan.shape<FuseShape>(), hashes, hooks_.failed_attempts,
                                      &last_attempts_, dst)) {
      WriteFailedBuildFallback(plan, *hashes, dst);
    }
  }

 private:
  double bits_per_key_;
  FuseTestHooks hooks_;
  mutable int last_attempts_ = 0;
};

}  // namespace sstfilter
