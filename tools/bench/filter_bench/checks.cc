#include "checks.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace filter_bench {
namespace {
// Negative keys are made and queried this many at a time, so 10M queries
// need 20 MB of keys, not 200.
constexpr size_t kFprChunk = size_t{1} << 20;
}  // namespace

void Fail(const std::string& message) {
  std::fprintf(stderr, "\nfilter_bench: ERROR: %s\n", message.c_str());
  std::exit(2);
}

void CheckNoFalseNegatives(const FilterUnderTest& test, size_t f,
                           KeyBatch* keys, int batch_size, BuiltFilter* filter) {
  auto fail = [&](size_t i, const char* how) {
    Fail("FALSE NEGATIVE: " + Label(test) + ": " + how + " MayMatch is false "
         "for key " + std::to_string(i) + " of filter " + std::to_string(f) +
         ", which was added. The filter is broken; nothing was timed.");
  };
  for (size_t i = 0; i < keys->size(); ++i) {
    if (!filter->MayMatch(keys->key(i))) fail(i, "single");
  }
  std::vector<rocksdb::Slice*> batch(batch_size);
  std::unique_ptr<bool[]> results(new bool[batch_size]);
  for (size_t i = 0; i < keys->size(); i += batch_size) {
    const int n = static_cast<int>(std::min<size_t>(batch_size, keys->size() - i));
    for (int j = 0; j < n; ++j) batch[j] = keys->key_ptr(i + j);
    std::fill(results.get(), results.get() + n, false);
    filter->MayMatch(n, batch.data(), results.get());
    for (int j = 0; j < n; ++j) {
      if (!results[j]) fail(i + j, "batched");
    }
  }
}

uint64_t CountFalsePositives(FilterSet* set, const KeyMaker& maker,
                             uint64_t queries, uint64_t seed) {
  Random64 rng(seed);
  KeyBatch keys;
  std::vector<uint32_t> target;
  uint64_t positives = 0;
  for (uint64_t done = 0; done < queries;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kFprChunk, queries - done));
    keys.Resize(n);
    target.resize(n);
    for (size_t i = 0; i < n; ++i) {
      maker.Write(rng.Next() | kNegativeIdBit, keys.mutable_key(i));
      target[i] = static_cast<uint32_t>(rng.Uniform(set->filters.size()));
    }
    for (size_t i = 0; i < n; ++i) {
      positives += set->filters[target[i]].MayMatch(keys.key(i));
    }
    done += n;
  }
  return positives;
}

uint64_t CountBatchDisagreements(FilterSet* set, QueryPlan* plan) {
  const int n = static_cast<int>(plan->group_size());
  std::unique_ptr<bool[]> results(new bool[n]);
  uint64_t disagreements = 0;
  for (size_t g = 0; g < plan->num_groups(); ++g) {
    BuiltFilter& filter = set->filters[plan->filter_of_group(g)];
    filter.MayMatch(n, plan->group_keys(g), results.get());
    for (int j = 0; j < n; ++j) {
      disagreements += results[j] != filter.MayMatch(*plan->group_keys(g)[j]);
    }
  }
  return disagreements;
}

}  // namespace filter_bench
