// RocksDB's filter builder and reader interfaces, declared here because
// RocksDB made them internal in 7.0 and Debian ships no internal header.
//
// These must match, virtual for virtual and in the same order, the classes
// in RocksDB's table/block_based/filter_policy_internal.h for the version we
// link against: a mismatch silently corrupts the vtable. The layout below is
// the one of RocksDB 7.x and 8.x (9.x inserts AddKeyAndAlt after AddKey;
// 10.x adds more). CMake refuses other versions, and so does this header.
//
// Only plugin/rocksdb/ and the benchmark tools include this file.

#pragma once

#include <cstddef>
#include <memory>

#include <rocksdb/slice.h>
#include <rocksdb/status.h>
#include <rocksdb/version.h>

#if ROCKSDB_MAJOR < 7 || ROCKSDB_MAJOR > 8
#error "sstfilter's FilterBitsBuilder/Reader declarations match RocksDB 7.x-8.x only"
#endif

namespace ROCKSDB_NAMESPACE {

// Builds one filter from keys; RocksDB calls (AddKey* Finish)*, then
// MaybePostVerify on each finished filter.
class FilterBitsBuilder {
 public:
  virtual ~FilterBitsBuilder() {}
  virtual void AddKey(const Slice& key) = 0;
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
