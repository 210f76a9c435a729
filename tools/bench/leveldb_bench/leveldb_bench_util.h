// Keys of tools/leveldb_bench, and its per-filter-size table.

#pragma once

#include <cstdint>
#include <string>

namespace sstfilter {

// SplitMix64's finalizer of i + 1: a fixed bijection on 64-bit values.
uint64_t BenchMix(uint64_t i);

// Key number i of the workload. "sequential": the zero-padded decimal
// number 2i (16 digits, like db_bench's keys); "random": 16 hex digits of
// BenchMix(i).
std::string BenchKey(uint64_t i, const std::string& style);

// A key never written that sorts among them: 2i + 1 for "sequential"
// (between keys i and i + 1), BenchMix(i + 2^40) for "random".
std::string BenchAbsentKey(uint64_t i, const std::string& style);

// Builds filters of n consecutive workload keys for a range of n, without a
// database, with LevelDB's NewBloomFilterPolicy and sstfilter's bloom and
// cuckoo policies, and prints a markdown table of bytes/key and measured
// FPR (absent keys from the same range) with a legend.
void PrintSmallFilterTable(double bits_per_key, const std::string& style);

}  // namespace sstfilter
