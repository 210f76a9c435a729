// What filter_bench checks before it times anything: a filter that loses
// keys, or whose batched and single answers differ, would make every figure
// after it meaningless.

#pragma once

#include <cstdint>
#include <string>

#include "filter_set.h"
#include "workload.h"

namespace filter_bench {

// Prints "ERROR: message" on stderr and ends the process with status 2.
[[noreturn]] void Fail(const std::string& message);

// Fails the run unless `filter` (workload filter `f` of `test`) answers
// "may match" for every key of `keys`, singly and in batches of
// `batch_size`.
void CheckNoFalseNegatives(const FilterUnderTest& test, size_t f,
                           KeyBatch* keys, int batch_size, BuiltFilter* filter);

// "May match" answers to `queries` negative keys, each aimed at a uniformly
// random filter of `set`: false positives, since negative keys are never
// added. Keys are made in chunks, untimed.
uint64_t CountFalsePositives(FilterSet* set, const KeyMaker& maker,
                             uint64_t queries, uint64_t seed);

// Keys of `plan` on which batched MayMatch answers differently from single
// MayMatch.
uint64_t CountBatchDisagreements(FilterSet* set, QueryPlan* plan);

}  // namespace filter_bench
