// sstfilter for RocksDB: Bloom, cuckoo, binary fuse and bumped ribbon filters as
// RocksDB filter policies.
//
//   #include <sstfilter/sstfilter.h>
//   table_options.filter_policy = sstfilter::NewCuckooFilterPolicy(12);
//
// or, in an options string or OPTIONS file (after the policies are
// registered, see below):
//
//   filter_policy=sstfilter.cuckoo:12
//   filter_policy={id=sstfilter.cuckoo;bits_per_key=12}
//
// Policies: sstfilter.bloom (cache-local Bloom), sstfilter.cuckoo (cuckoo,
// best variant for the budget), sstfilter.cuckoo_plain and
// sstfilter.cuckoo_semisorted (one variant each), sstfilter.fuse (binary
// fuse filter, 4 to 100 bits/key). All share one
// CompatibilityName, "sstfilter": any of them reads filters written by any
// other, and RocksDB's built-in policies never see sstfilter bytes (such an
// SST is read without a filter: slower, never wrong). sstfilter.burr
// (bumped ribbon retrieval, within 1% of the space bound from 100k keys)
// is the most accurate at a given size. Filters hash the key's bytes, as
// RocksDB's own do: keys the comparator calls equal must be equal bytes.
//
// With the option compat=builtin (filter_policy={id=sstfilter.cuckoo;
// bits_per_key=12;compat=builtin}, or Compat::kBuiltin below) a policy
// joins RocksDB's built-in family instead: it reads the built-in Bloom and
// Ribbon filters of SSTs written before a switch to sstfilter (through
// RocksDB's own reader), and its filters read as "may match" for every key
// under a built-in policy after a switch back. docs/policy_switches.md.
//
// With the option allocation=monkey (filter_policy={id=sstfilter.cuckoo;
// bits_per_key=10;allocation=monkey}) a policy spends bits_per_key on
// average over a levelled tree instead of in every file: fewer bits in the
// bottom level, more in the small upper ones, so that the false positives
// summed over every run a lookup probes are several times fewer for the same
// memory (Monkey, SIGMOD 2017; docs/design/level_allocation.md). A level's
// filter may be a Bloom filter where that is the more accurate for its
// bits. The policy needs the tree's shape: with the LevelListener (below)
// in the DB's options it has the tree exactly, from RocksDB's metadata,
// whatever the level targets and after a reopen, and gives every file the
// budget where it expects no gain; without it, it estimates the tree from
// the files it builds, starting empty after a reopen. Files whose level is
// unknown (SstFileWriter), FIFO and universal compaction get bits_per_key.
// allocation=uniform is the default. Switching either way on
// a live DB is safe: every sstfilter policy reads every sstfilter filter.
//
// Registration: loading libsstfilter.so (LD_PRELOAD or linking) registers
// the policies in ObjectLibrary::Default(). With the static library, call
// RegisterSstFilter yourself. WARNING: RocksDB silently replaces a policy
// id nobody registered with no filter at all (Status OK, null policy) when
// ignore_unsupported_options is true, its default for OPTIONS files. Check
// the policy you load is not null.

#pragma once

#include <memory>
#include <string>

#include <rocksdb/filter_policy.h>
#include <rocksdb/listener.h>
#include <rocksdb/options.h>
#include <rocksdb/status.h>
#include <rocksdb/utilities/object_registry.h>

namespace sstfilter {

// The meta block family a policy's filters are stored and looked up under.
enum class Compat {
  kSstfilter,  // "sstfilter": sstfilter's own (the default)
  kBuiltin,    // RocksDB's built-in filters' family, shared with them
};

// Cache-local Bloom filter policy. bits_per_key: any value from 1 to 100,
// fractional allowed. Throws std::invalid_argument outside that range (or
// for NaN); use NewFilterPolicy for a Status instead.
std::shared_ptr<const rocksdb::FilterPolicy> NewBloomFilterPolicy(
    double bits_per_key);

// Cuckoo filter policy picking the variant and fingerprint size with the
// lowest FPR whose table fits bits_per_key (4 to 100). Throws
// std::invalid_argument outside that range.
std::shared_ptr<const rocksdb::FilterPolicy> NewCuckooFilterPolicy(
    double bits_per_key);

// Any sstfilter policy by name ("bloom", "cuckoo", "cuckoo_plain",
// "cuckoo_semisorted", "fuse", with or without the "sstfilter." prefix). Returns
// InvalidArgument, and leaves *policy alone, for an unknown name or a
// bits_per_key that is NaN, infinite or out of range.
rocksdb::Status NewFilterPolicy(const std::string& name, double bits_per_key,
                                std::shared_ptr<const rocksdb::FilterPolicy>* policy);
// The same, in the family `compat`.
rocksdb::Status NewFilterPolicy(const std::string& name, double bits_per_key, Compat compat,
                                std::shared_ptr<const rocksdb::FilterPolicy>* policy);

// The listener that tells allocation=monkey the tree: add it to the DB's
// options (options.listeners.push_back(sstfilter::NewLevelListener())), or
// name it in an options string or OPTIONS file's DBOptions:
// listeners={sstfilter.LevelListener}. It reads each column family's files
// per level at every flush and compaction; policies of other allocations
// ignore it.
std::shared_ptr<rocksdb::EventListener> NewLevelListener();

// True if `policy` is one of sstfilter's.
bool IsSstFilterPolicy(const rocksdb::FilterPolicy* policy);

// Guards against RocksDB's silent drop of unregistered policies. OK if
// `options` will build sstfilter filters: a block-based table factory whose
// filter_policy is an sstfilter policy. Otherwise InvalidArgument saying
// what is in effect instead: no filter at all (null policy, what an OPTIONS
// file naming an unregistered id loads as), another policy (by name), or a
// table factory that is not block-based. Accepts rocksdb::Options too.
rocksdb::Status CheckFilterPolicyInEffect(const rocksdb::ColumnFamilyOptions& options);

}  // namespace sstfilter

namespace ROCKSDB_NAMESPACE {

// Registers every sstfilter policy with `library`, under the ids
// "sstfilter.<name>" with an optional ":<bits_per_key>" suffix, plus a
// catch-all for other "sstfilter.*" ids, whose policy refuses: DB::Open
// fails with InvalidArgument, and SstFileWriter::Finish with Corruption,
// naming the id (so a typo is an error, not a silent missing filter). Returns the number
// of factories added. The signature is RocksDB's RegistrarFunc.
int RegisterSstFilter(ObjectLibrary& library, const std::string& arg);

}  // namespace ROCKSDB_NAMESPACE

// The same, as RocksDB's in-tree plugin build declares registrars: with C
// linkage at global scope (sstfilter_FUNC in sstfilter.mk). RocksDB calls
// it when the library starts; users call RegisterSstFilter above.
extern "C" int RegisterSstFilterPlugin(ROCKSDB_NAMESPACE::ObjectLibrary& library,
                                       const std::string& arg);
