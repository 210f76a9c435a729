// Range filters for RocksDB: a short scan skips the SSTs that hold no key in
// its range, with no RocksDB patch. Two public hooks carry it: a
// TablePropertiesCollector writes each new SST's range filter into its
// table properties, and ReadOptions::table_filter asks it when an iterator
// opens the SST.
//
//   #include <sstfilter/range_filter.h>
//   options.table_properties_collector_factories.push_back(
//       sstfilter::NewRangeFilterCollectorFactory());       // 16 bits/key
//   ...
//   sstfilter::RangeScan scan(db, rocksdb::ReadOptions(), cf, "user1000", "user1016");
//   for (scan->SeekToFirst(); scan->Valid(); scan->Next()) { ... }
//
// or in an options string or OPTIONS file (the library loaded, as for the
// filter policies): table_properties_collectors={sstfilter.range:16}
// (docs/guide/range_filter.md has the forms each RocksDB version takes).
//
// Contract:
// - RangeTableFilter(lower, upper) returns false only for an SST that has
//   no entry of any type (put, merge, delete, single delete, wide-column
//   entity, blob index, ...) whose user key is in [lower, upper), and no
//   range tombstone overlapping it. An SST written without the collector,
//   with a damaged or unknown range filter, with more than 64 range
//   tombstones, or under a comparator other than RocksDB's bytewise one, is
//   always admitted.
// - The filter lives in the SST's table properties, which RocksDB holds in
//   memory for every open SST, outside the block cache: about
//   bits_per_key / 8 bytes a key. An SST without the collector pays
//   nothing.
// - False positives: about L / 2^(bits_per_key - 2) for a range of L
//   consecutive keys of the SST's key shape (docs/results/range_filter.md).
// - Point lookups never ask it; LevelDB has no such hook.

#pragma once

#include <functional>
#include <memory>
#include <string>

#include <rocksdb/db.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>
#include <rocksdb/table_properties.h>

namespace sstfilter {

struct RangeFilterOptions {
  // Bits per distinct key, 4 to 40: the FPR of a range of L keys is about
  // L / 2^(bits_per_key - 2).
  double bits_per_key = 16;
};

// The user property an SST's range filter is stored under.
extern const char kRangeFilterProperty[];  // "sstfilter.range"

// The collector factory, for ColumnFamilyOptions::
// table_properties_collector_factories. Registered as "sstfilter.range"
// (":<bits_per_key>" optional) for options strings. Throws
// std::invalid_argument for bits_per_key outside [4, 40].
std::shared_ptr<rocksdb::TablePropertiesCollectorFactory> NewRangeFilterCollectorFactory(
    const RangeFilterOptions& options = {});

// For ReadOptions::table_filter of a scan within [lower, upper): false for
// an SST the range filter rules out (see the contract above). Copies its
// bounds.
std::function<bool(const rocksdb::TableProperties&)> RangeTableFilter(
    const rocksdb::Slice& lower, const rocksdb::Slice& upper);

// An iterator over [lower, upper) whose bounds and table filter are set
// together from one copy of the bounds, which it keeps as long as it
// lives. A table_filter already in `options` still applies: it is asked
// first, about every SST, and both must admit an SST. Use it as the iterator it holds: scan->Seek(...).
class RangeScan {
 public:
  RangeScan(rocksdb::DB* db, const rocksdb::ReadOptions& options,
            rocksdb::ColumnFamilyHandle* cf, const rocksdb::Slice& lower,
            const rocksdb::Slice& upper);
  RangeScan(const RangeScan&) = delete;
  RangeScan& operator=(const RangeScan&) = delete;

  rocksdb::Iterator* operator->() const { return iterator_.get(); }
  rocksdb::Iterator& operator*() const { return *iterator_; }
  rocksdb::Iterator* get() const { return iterator_.get(); }

 private:
  const std::string lower_, upper_;
  const rocksdb::Slice lower_slice_, upper_slice_;  // over lower_ and upper_
  std::unique_ptr<rocksdb::Iterator> iterator_;
};

}  // namespace sstfilter
