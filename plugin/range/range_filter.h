// The range filter: "may [lo, hi) hold a key of this table?" for one
// table's byte-string keys, in about bits_per_key bits a key.
//
// Design (after Grafite, Costa et al. 2024). Keys become integers through
// the table's KeyMap (key_map.h: order-preserving, prefixes and unused
// byte values squeezed out). With B bits/key the filter keeps a sorted set
// of codes in a universe of r = n * 2^(B-2), stored as Elias-Fano in about
// B bits/key:
// - exact: when the KeyMap's universe fits in r, each key's code is its
//   integer. A range is empty exactly when no code lies in its image, so the
//   only false positives come from keys the map merged (beyond its window).
// - hashed: otherwise a key's integer x splits into a block x / L and an
//   offset x % L (L = kBlock, or r if smaller); the block's hash picks a
//   start on the ring [0, r), and the code is start + offset (mod r). A
//   range meets at most a few blocks, each a run of the ring as long as its
//   part of the range. Keys in the range's own block keep their exact
//   offsets, so a range just beside a key does not meet it; keys of other
//   blocks land anywhere: a range of length L' is a false positive with
//   probability at most n * L' / r = L' / 2^(B-2).
// A range is first mapped to integers [KeyMap(lo), KeyMap(hi)], one less
// at the top where the map is strict there, so an empty image answers "no"
// without looking at the codes.
//
// A range overlapping one of the table's range tombstones (kept, up to
// kMaxTombstones) may match: the tombstone can hide keys of older tables.
//
// The bytes (docs/format.md, "Range filter"): a header, checksummed, then
// the Elias-Fano body and the range tombstones. RocksDB keeps them in the table's properties, whose
// block RocksDB checksums when it reads them.

#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "range/elias_fano.h"
#include "range/key_map.h"

namespace sstfilter {

// Builds one table's range filter. Keys in any order, repeats allowed.
class RangeFilterBuilder {
 public:
  explicit RangeFilterBuilder(double bits_per_key);

  void AddKey(std::string_view key);
  // A range tombstone [start, end): every range it overlaps may match (it
  // can hide keys of older tables there). Past kMaxTombstones, or
  // kMaxTombstoneBytes of their keys, the filter matches everything.
  void AddRangeTombstone(std::string_view start, std::string_view end);
  // The table holds something the filter cannot place: its filter says
  // "may" for every range.
  void MatchEverything() { match_everything_ = true; }

  static constexpr size_t kMaxTombstones = 64;
  static constexpr size_t kMaxTombstoneBytes = 16 << 10;
  uint64_t NumKeys() const { return keys_; }

  // The filter's bytes. The builder is then spent: a later Finish returns
  // a filter that matches everything.
  std::string Finish();

 private:
  double bits_per_key_;
  bool match_everything_ = false;
  bool spent_ = false;
  uint64_t keys_ = 0;
  KeyMapBuilder map_;
  // Each distinct key's first KeyMap::kWindow bytes, after a byte of
  // their length: all a code depends on.
  std::string window_;
  std::string last_;  // the last key added, to skip repeats
  bool has_last_ = false;
  std::vector<std::pair<std::string, std::string>> tombstones_;
  size_t tombstone_bytes_ = 0;
};

// Answers queries over a filter's bytes, which must outlive it. Parse
// validates the header once; after a false the caller treats every range
// as a possible match.
class RangeFilterReader {
 public:
  bool Parse(std::string_view bytes);

  // Whether a key k with lo <= k < hi may be in the table (bytewise order).
  // Never false for a range holding a key the builder was given.
  bool MayContain(std::string_view lo, std::string_view hi) const;

  uint64_t num_keys() const { return ef_shape_.n; }

 private:
  // Whether a code lies in the ring run [start, start + extra] (mod r).
  bool RunMayContain(uint64_t start, uint64_t extra) const;

  enum class Mode : uint8_t { kExact = 0, kHashed = 1, kEverything = 2 };
  Mode mode_ = Mode::kEverything;
  // Range tombstones [start, end), views into the filter's bytes.
  std::pair<std::string_view, std::string_view> tombstones_[RangeFilterBuilder::kMaxTombstones];
  size_t num_tombstones_ = 0;
  KeyMap map_;
  uint64_t block_ = 0;
  EliasFanoShape ef_shape_;
  EliasFanoView ef_;
};

}  // namespace sstfilter
