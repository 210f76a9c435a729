// sstfilter for LevelDB: the same Bloom and cuckoo filters as LevelDB
// filter policies (leveldb::FilterPolicy, LevelDB 1.23).
//
//   #include <sstfilter/leveldb.h>
//   auto policy = sstfilter::NewLevelDBCuckooFilterPolicy(10);
//   leveldb::Options options;
//   options.filter_policy = policy.get();
//   leveldb::DB::Open(options, path, &db);
//   ...
//   delete db;  // then `policy` may go
//
// Link with sstfilter::leveldb (libsstfilter_leveldb.so) or
// sstfilter::leveldb_static; neither needs RocksDB.
//
// Ownership and threads: the caller owns the policy, and it must outlive
// every DB (and leveldb::Table) opened with it. A policy is immutable and
// may be shared by any number of DBs and threads at once.
//
// Memory: bits_per_key is a budget in LevelDB's own terms. Every filter
// takes at most the bytes LevelDB's NewBloomFilterPolicy(bits_per_key)
// writes for the same keys, max(64, n * bits_per_key) bits rounded up to
// bytes, plus one byte. This holds for every n when bits_per_key >= 7.5.
// Below that, a filter whose budget leaves under 1 payload bit per key (a
// few keys more than 8, or any filter under 2 bits/key) is the smallest
// Bloom filter, 1 bit/key, instead: at most 2 bytes over from 3 bits/key
// up, more below.
//
// Small filters: LevelDB keeps one filter per 2 KiB of data-block offsets,
// so filters hold tens of keys. Up to 1024 keys, every policy writes the
// small form where it is expected to be more accurate than the type's own
// filter in the same budget, which at LevelDB's sizes is almost always: the
// keys' fingerprints, sorted and Elias-Fano coded (about 1.9 bits/key over
// log2(1/FPR)), with a 2- or 3-byte trailer (an 11- or 13-bit check)
// instead of the 8-byte one with its 32-bit checksum (docs/format.md says
// what that protects). At 10 bits/key that is about 0.45% FPR for 35 keys,
// half of LevelDB's Bloom filter's; from 10 bits/key up it is at least as
// accurate as LevelDB's own Bloom filter at every filter size (below 10,
// filters of under about 20 keys may be less accurate, up to 1.27x at 8
// bits/key: tools/research/small_filter_model.py). tools/bench/leveldb_bench
// measures it (docs/results/leveldb_bench.md).
//
// Cuckoo: above the small form's sizes the cuckoo policy writes a cuckoo
// table where one fits the budget at the type's minimum bits/key or more
// and is expected to be more accurate than a Bloom filter of the same
// bytes; otherwise, and if placement needed a stash that would break the
// budget, it writes that Bloom filter (one exact-size line). All are one
// encoding: any sstfilter LevelDB policy reads filters written by any
// other.
//
// Cost: LevelDB hands the filter bytes to every KeyMayMatch call, so each
// call checks the filter's checksum over the whole filter (a few ns for
// LevelDB's typical 40-byte filters) and, in the small form, scans the
// fingerprint bitmap (tools/bench/leveldb_bench reports ns per query).
//
// Name(): "sstfilter.v1" for every type and every format version, so the
// meta block is always "filter.sstfilter.v1". It never changes: readers
// dispatch on the filter's own bytes (its trailer), so tables
// written by any format stay filtered (tests/leveldb_adapter/leveldb_compat_test.cc).
// Tables written with LevelDB's own Bloom policy, or with none, are read
// correctly (without a filter) by a DB configured with an sstfilter policy,
// and the other way round.
//
// Errors: KeyMayMatch answers "may match" for anything it cannot trust
// (empty, truncated, damaged or foreign bytes): a wrong filter costs reads,
// never a missing key.

#pragma once

#include <memory>
#include <string>

#include <leveldb/filter_policy.h>
#include <leveldb/status.h>

namespace sstfilter {

// Cache-local Bloom filter policy. bits_per_key: 1 to 100, fractional
// allowed. Throws std::invalid_argument outside that range or for NaN;
// NewLevelDBFilterPolicy returns a Status instead.
std::unique_ptr<const leveldb::FilterPolicy> NewLevelDBBloomFilterPolicy(
    double bits_per_key);

// Cuckoo filter policy (best variant and fingerprint size for the budget,
// Bloom where no cuckoo table fits; see above). bits_per_key: 4 to 100.
// Throws std::invalid_argument outside that range or for NaN.
std::unique_ptr<const leveldb::FilterPolicy> NewLevelDBCuckooFilterPolicy(
    double bits_per_key);

// Any sstfilter policy by type: "bloom", "cuckoo", "cuckoo_plain",
// "cuckoo_semisorted" or "fuse" (which writes Bloom filters at LevelDB's
// usual few dozen keys per filter, fuse filters from a few thousand), with
// or without a "sstfilter." prefix. Returns
// InvalidArgument, leaving *policy alone, for an unknown type or a
// bits_per_key that is NaN, infinite or out of the type's range.
leveldb::Status NewLevelDBFilterPolicy(
    const std::string& type, double bits_per_key,
    std::unique_ptr<const leveldb::FilterPolicy>* policy);

}  // namespace sstfilter
