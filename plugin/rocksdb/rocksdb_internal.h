// RocksDB's filter builder and reader interfaces (FilterBitsBuilder,
// FilterBitsReader), which RocksDB made internal in 7.0.
//
// Built in-tree (RocksDB's plugin/sstfilter, SSTFILTER_IN_TREE defined by
// cmake/rocksdb_plugin.cmake) we include RocksDB's own header. Built out of
// tree against an installed RocksDB, which ships no internal header, we
// declare the classes ourselves, and they must match RocksDB's
// table/block_based/filter_policy_internal.h virtual for virtual, in the
// same order, for the version we link against: a mismatch silently
// corrupts the vtable. Declared here, checked against each release's
// header:
//   7.x, 8.x  (7.8.3 built and tested; 8.x has the same layout)
//   9.x       AddKeyAndAlt after AddKey (9.7.4 built and tested)
// 10.x adds CalculateSpace and EstimatedFpRate to the builder: not
// declared, refused below and by CMake.
//
// Only plugin/rocksdb/ and the benchmark tools include this file.

#pragma once

#include <rocksdb/version.h>

#if defined(SSTFILTER_IN_TREE)

#include "table/block_based/filter_policy_internal.h"

#else  // out of tree: our declaration of the version we link against

#include <cstddef>
#include <memory>

#include <rocksdb/slice.h>
#include <rocksdb/status.h>

#if ROCKSDB_MAJOR < 7 || ROCKSDB_MAJOR > 9
#error "sstfilter declares RocksDB's FilterBitsBuilder/Reader for 7.x-9.x only; build in-tree (ROCKSDB_PLUGINS=sstfilter) for other versions"
#endif

namespace ROCKSDB_NAMESPACE {

// Builds one filter from keys; RocksDB calls (AddKey* Finish)*, then
// MaybePostVerify on each finished filter.
class FilterBitsBuilder {
 public:
  virtual ~FilterBitsBuilder() {}
  virtual void AddKey(const Slice& key) = 0;
#if ROCKSDB_MAJOR >= 9
  // Adds `key` and `alt` (its prefix, with a prefix extractor and whole-key
  // filtering); either may repeat what was added before.
  virtual void AddKeyAndAlt(const Slice& key, const Slice& alt) = 0;
#endif
  virtual size_t EstimateEntriesAdded() = 0;
  virtual Slice Finish(std::unique_ptr<const char[]>* buf) = 0;
  virtual Slice Finish(std::unique_ptr<const char[]>* buf, Status* /*status*/) {
    return Finish(buf);
  }
  virtual Status MaybePostVerify(const Slice& /*filter_content*/) {
    return Status::OK();
  }
  virtual size_t ApproximateNumEntries(size_t bytes) = 0;
};

// Queries one filter. RocksDB keeps the filter bytes alive while it holds
// the reader (both live in the cached filter block).
class FilterBitsReader {
 public:
  virtual ~FilterBitsReader() {}
  virtual bool MayMatch(const Slice& entry) = 0;
  virtual void MayMatch(int num_keys, Slice** keys, bool* may_match) {
    for (int i = 0; i < num_keys; ++i) may_match[i] = MayMatch(*keys[i]);
  }
};

}  // namespace ROCKSDB_NAMESPACE

#endif  // SSTFILTER_IN_TREE
