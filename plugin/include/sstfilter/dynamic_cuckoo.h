// Dynamic cuckoo filter: a set of keys with Insert, Erase and membership
// queries that grows as keys arrive, without the original keys, keeping its
// false-positive rate at or below a target at every size. Core library: no
// RocksDB needed. Design and space math: docs/design/dynamic_cuckoo.md;
// byte format: docs/format.md.
//
// Guarantees:
// - No false negatives: a key inserted (kOk) and not erased always matches,
//   whatever else is inserted or erased (as long as every Erase names a key
//   that was inserted: see Erase), across growth, Save and Load.
// - A key may be inserted several times (a multiset): up to
//   kDynamicCuckooMaxCopies entries matching it in its two buckets (an
//   entry of another key that matches it counts too); the next Insert
//   returns kTooManyCopies and changes nothing. k copies cost about what k
//   distinct keys cost: each takes a slot or an eviction path, and a copy
//   with neither is counted beside an entry it matches (docs/results/
//   dynamic_cuckoo.md has the figures).
// - Erase never shrinks the filter: after mass deletes, rebuild it (a new
//   filter, presized with initial_capacity, fed the remaining keys).
// - ExpectedFpr() <= target_fpr at every size (model FPR; measured FPR agrees
//   within sampling error, see tools/bench/dynamic_bench).
// - Space: entries lose a fingerprint bit at each split of the table, and
//   buckets widen from 4 to 7 slots between splits, so the load stays
//   between about 76% and 95%, with no spare fingerprint bits (measured
//   against the static cuckoo filter: docs/results/dynamic_cuckoo.md).
// - Limits: growth never stops short of memory: past expected_max_keys the
//   filter keeps growing with longer fingerprints for new entries. Insert
//   returns kFull only when the next table would exceed 2^39 buckets or the
//   system cannot map it.
// - Formats: Save writes format version 5. Load also reads the doubling
//   tables of versions 1 to 3, which no build writes any more: such a
//   filter answers lookups with no false negative and at the FPR it was
//   saved with, but is read-only (Insert and Erase return kReadOnly;
//   ReplaceWith kInvalidArgument) and saves back the bytes it was loaded
//   from. To add keys, build a new filter from the keys.
// - Memory: tables are anonymous mappings; a replaced table's memory is
//   returned to the system at once, its address range only when the filter
//   is destroyed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sstfilter/dynamic_options.h"

namespace sstfilter {

class DynamicCuckooFilter;
namespace dynamic_cuckoo {
class GrowingFilter;
struct FilterRep;  // the filter's state (dynamic_cuckoo_rep.h)
// Internal (defined in dynamic_cuckoo.cc, for the key guard's read path):
// the growing engine under `f`, or null for a read-only filter of
// versions 1 to 3.
const GrowingFilter* GrowingEngineOf(const DynamicCuckooFilter& f);
}  // namespace dynamic_cuckoo

// Thread safety: any number of concurrent const calls (Contains*) together
// with ONE thread calling non-const members (Insert/Erase/...); a Contains
// running during an Insert/Erase/growth of OTHER keys never misses a key that
// was inserted (and not erased) before that Contains started.
// Size, MemoryBytes and ExpectedFpr may be called from any thread (a recent
// value while a writer runs). Save must not run concurrently with the
// writer (call it from the writer thread or while no writer runs).
class DynamicCuckooFilter {
 public:
  // InvalidArgument for target_fpr outside (0, 0.5), capacity 0, the
  // limits above, or a format_version other than 0 and 5.
  static DynamicStatus Create(const DynamicCuckooOptions& options,
                              std::unique_ptr<DynamicCuckooFilter>* out);
  // Reads format versions 1, 2, 3 (read-only: see Formats above) and 5.
  // Damaged, truncated or foreign input -> kCorrupt, *out untouched.
  static DynamicStatus Load(std::string_view bytes,
                            std::unique_ptr<DynamicCuckooFilter>* out);
  ~DynamicCuckooFilter();
  DynamicCuckooFilter(const DynamicCuckooFilter&) = delete;
  DynamicCuckooFilter& operator=(const DynamicCuckooFilter&) = delete;

  // Keys are hashed with sstfilter's fixed KeyHash; the *Hash forms take that
  // 64-bit hash directly (for callers that already have it).
  DynamicStatus Insert(std::string_view key);
  // Removes one copy of the key. Precondition: the key was inserted (kOk) and
  // not yet erased as many times. Erasing a key that is not in the filter is
  // the caller's bug: it may remove another key's fingerprint (a false
  // negative for that key). kNotFound when the filter can tell (the key does
  // not match at all, or checked mode, which keeps an exact multiset of the
  // inserted hashes and detects every such Erase).
  DynamicStatus Erase(std::string_view key);
  bool Contains(std::string_view key) const;
  void ContainsBatch(const std::string_view* keys, size_t n, bool* results) const;
  // Inserts keys[0..n) in order, exactly as n Insert calls would, and
  // writes keys[i]'s status to statuses[i] (n entries), while the buckets
  // of the keys a few places ahead are already being loaded. For bulk
  // loads of filters larger than the CPU cache, where each insert would
  // otherwise wait on its own cache misses (at 10M keys InsertHashBatch
  // takes half the time of single inserts: docs/results/dynamic_cuckoo.md;
  // InsertBatch adds the key hashing); in cache it gains
  // nothing. For example:
  //   std::vector<DynamicStatus> st(keys.size());
  //   filter->InsertBatch(keys.data(), keys.size(), st.data());
  void InsertBatch(const std::string_view* keys, size_t n, DynamicStatus* statuses);
  void InsertHashBatch(const uint64_t* hashes, size_t n, DynamicStatus* statuses);
  DynamicStatus InsertHash(uint64_t hash);
  DynamicStatus EraseHash(uint64_t hash);
  bool ContainsHash(uint64_t hash) const;
  // Replaces this filter's options and keys by `other`'s, which is
  // consumed: for a filter rebuilt off the writer's path (presized for the
  // keys it holds now) that takes over from one grown into them. Readers
  // are never blocked: a Contains running across the call answers from one
  // filter or the other, so it never misses a key both hold. Writer thread
  // only. Both filters in format version 5, else kInvalidArgument and
  // nothing changed.
  DynamicStatus ReplaceWith(std::unique_ptr<DynamicCuckooFilter> other);
  // Starts loading the buckets ContainsHash(hash) and InsertHash(hash) will
  // read, so that a caller with other work first (taking a lock) overlaps
  // the cache misses with it. A hint: no effect on any result.
  void PrefetchHash(uint64_t hash) const;

  uint64_t Size() const;          // inserted minus erased (counting copies)
  // The options it was created with, or saved with (Load).
  const DynamicCuckooOptions& options() const;
  size_t MemoryBytes() const;     // bytes of filter state (tables)
  double ExpectedFpr() const;     // model FPR at the current size
  void Save(std::string* out) const;  // appends; versioned + checksummed

 private:
  DynamicCuckooFilter();
  std::unique_ptr<dynamic_cuckoo::FilterRep> rep_;
  // rep_->growing, one pointer hop closer for lookups (null: a read-only
  // filter of versions 1 to 3).
  dynamic_cuckoo::GrowingFilter* growing_ = nullptr;
  friend const dynamic_cuckoo::GrowingFilter* dynamic_cuckoo::GrowingEngineOf(
      const DynamicCuckooFilter& f);
};

}  // namespace sstfilter
