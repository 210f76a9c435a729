// LevelDBFilterPolicy: one leveldb::FilterPolicy class for every sstfilter
// filter type, writing each per-block filter within the memory LevelDB's
// own Bloom policy would use for it. The public contract is in
// plugin/include/sstfilter/leveldb.h.

#pragma once

#include <cstddef>
#include <string>

#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#include "filters/filter_spec.h"

namespace sstfilter {

// Bytes LevelDB 1.23's NewBloomFilterPolicy(bits_per_key) appends for
// `num_keys` keys: max(64, n * bits_per_key) bits in whole bytes, plus one
// byte holding its probe count. This is the budget of every filter we write.
size_t LevelDBBloomFilterBytes(size_t num_keys, double bits_per_key);

// The Name() of every sstfilter LevelDB policy, of every type and every
// format version; the meta block is "filter.sstfilter.v1". Fixed forever:
// LevelDB uses a table's filter only if the table was written under the
// name of the policy it is opened with, so a new name would leave every
// existing table unfiltered. Readers tell formats apart by the filter
// bytes (the trailer's version and kind), not by the name. The "v1" is
// the format version the name was first written with, and stays when the
// format changes. tests/data/leveldb_v1 (leveldb_compat_test) pins it.
inline constexpr char kLevelDBPolicyName[] = "sstfilter.v1";

class LevelDBFilterPolicy : public leveldb::FilterPolicy {
 public:
  // Requires ValidateFilterSpec(spec).empty().
  explicit LevelDBFilterPolicy(const FilterSpec& spec);

  LevelDBFilterPolicy(const LevelDBFilterPolicy&) = delete;
  LevelDBFilterPolicy& operator=(const LevelDBFilterPolicy&) = delete;

  const char* Name() const override { return kLevelDBPolicyName; }

  // Appends one filter over keys[0, n) to *dst, of at most
  // LevelDBBloomFilterBytes(n, bits_per_key) bytes (leveldb.h states the
  // exception below 7.5 bits/key). Thread-safe.
  void CreateFilter(const leveldb::Slice* keys, int n,
                    std::string* dst) const override;

  // False only if `filter` is an intact sstfilter filter that certainly
  // does not hold `key`. Never allocates, never reads outside `filter`.
  bool KeyMayMatch(const leveldb::Slice& key,
                   const leveldb::Slice& filter) const override;

  const FilterSpec& spec() const { return spec_; }

 private:
  FilterSpec spec_;
};

}  // namespace sstfilter
