// What FPR to expect, so filter_bench can refuse to time a filter that is
// broken rather than slow. The models are textbook ones, written here
// independently of the filters' own code: a check that reused a filter's
// own estimate would pass whatever the filter did.
//
// - Bloom-like (bloom, rocksdb_bloom): a cache-local Bloom filter, keys
//   spread over 512-bit lines with Poisson(512 / bpk) keys per line, with
//   the best probe count. Large filters at 10 bits/key: 0.957%.
// - rocksdb_ribbon: the same figure at its Bloom-equivalent setting; that
//   is what Ribbon is configured to deliver.
// - Cuckoo: buckets of 4 slots, 2 candidate buckets, at the highest load
//   (< 95%) and longest fingerprint that fit bpk: s = ceil(0.95 bpk) - 1
//   bits per slot, load s / bpk, fingerprint f = s (plain) or s + 1
//   (semi-sorted saves one bit per entry); FPR = 1 - (1 - 1/(2^f - 1))^(8
//   load). At 10 bits/key: 1.40% plain, 0.70% semi-sorted.
//   "cuckoo" expects the better of the two.
// - Fuse: one f-bit fingerprint slot per 1.25 keys at most for filters of
//   10k keys or more (the most slots per key a binary fuse filter of that
//   size needs; 1.075-1.125 for millions of keys), so f = floor(bpk /
//   1.25) and FPR = 2^-f: an upper estimate, 0.39% at 10 bits/key, where
//   large filters reach 0.195%.
// - Any other sstfilter filter (a kind registered with no model here) is
//   held to the Bloom-like figure: a loose check, until it gets its own.

#pragma once

#include <cstdint>
#include <string>

namespace filter_bench {

// Expected FPR of cache-local Bloom with `probes` probes per key.
double CacheLocalBloomFpr(double bits_per_key, int probes);
// The same with the probe count that minimises it.
double BestCacheLocalBloomFpr(double bits_per_key);
double CuckooFpr(double bits_per_key, bool semi_sorted);
double FuseFpr(double bits_per_key);

// Expected FPR of the filter named `filter` (see KnownFilterNames) at
// setting `bits_per_key`.
double ExpectedFpr(const std::string& filter, double bits_per_key);

// The highest FPR accepted before timing: `factor` times the expectation,
// plus 4 standard deviations of a count of `queries` Bernoulli trials (so a
// correct filter fails by bad luck less than once in 30000 runs).
double FprUpperBound(double expected, double factor, uint64_t queries);

// The lowest FPR a filter of `bits_per_key` actual bits/key can have,
// 2^-bits_per_key, minus 4 standard deviations: a measurement below it
// means the measurement, not the filter, is wrong.
double FprLowerBound(double bits_per_key, uint64_t queries);

}  // namespace filter_bench
