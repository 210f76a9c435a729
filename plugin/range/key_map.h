// KeyMap: an order-preserving map from byte-string keys to integers, fitted
// to one table's keys, so that a range of keys becomes a range of integers
// whose length is close to the number of keys it could hold.
//
// The keys are read as numbers in a mixed radix: position i of a key (its
// i-th byte, or "ended" for a key of length i) is a digit whose alphabet is
// what the table's keys hold there, [min_i, max_i], plus an end symbol
// below it where some key ends at i. A position where every key has the
// same byte is a digit of base 1 and costs nothing, so a shared prefix
// ("user", a 4-byte table id) drops out, and a decimal id's digits count in
// base 10 where they span 0-9. Positions are taken from the first on while
// the product of bases stays within 2^kMaxUniverseBits; the last one that
// does not fit is coarsened (its digit scaled down), later ones dropped.
//
// Contract: Map is monotone over all byte strings (a <= b bytewise implies
// Map(a).value <= Map(b).value), so a key in [lo, hi) maps into
// [Map(lo).value, Map(hi).value]. Where Map(s).strict, every string that
// is < s and whose positions all lie inside the alphabets maps strictly
// below Map(s).value; so does every key of the table (they define the
// alphabets). The table's distinct keys map to distinct values unless the
// map coarsened or dropped positions they differ in.

#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/hash.h"  // Uint128

namespace sstfilter {

class KeyMap {
 public:
  // Keys are read up to this many bytes; longer ones share a value with
  // every key of the same first kWindow bytes.
  static constexpr size_t kWindow = 24;
  static constexpr unsigned kMaxUniverseBits = 120;

  struct Position {
    uint8_t min = 0;       // smallest byte a key holds here
    bool has_end = false;  // some key ends here: digit 0 is "ended"
    uint16_t base = 1;     // alphabet size: has_end + (max - min + 1) if a key has a byte here
  };

  struct Mapped {
    Uint128 value = 0;
    bool strict = false;
  };

  // The positions read, first to last (a view into the map).
  struct Positions {
    const Position* first;
    size_t count;
    const Position* begin() const { return first; }
    const Position* end() const { return first + count; }
    size_t size() const { return count; }
  };

  KeyMap() = default;
  // At most kWindow positions.
  KeyMap(const Position* positions, size_t count, uint16_t last_scaled_base);

  // Values lie in [0, universe()).
  Uint128 universe() const { return universe_; }
  Mapped Map(std::string_view key) const;

  Positions positions() const { return {positions_.data(), count_}; }
  // The base the last position's digits are scaled to (its own base when
  // not coarsened).
  uint16_t last_scaled_base() const { return last_scaled_base_; }

 private:
  // Held inline: a reader parses a map at every table_filter decision.
  std::array<Position, kWindow> positions_{};
  size_t count_ = 0;
  uint16_t last_scaled_base_ = 1;
  Uint128 universe_ = 1;
};

// Collects what a KeyMap needs from a table's keys, in any order.
class KeyMapBuilder {
 public:
  void Add(std::string_view key);
  // The map for the keys added so far (the identity on nothing if none).
  KeyMap Build() const;

 private:
  struct Seen {
    uint8_t min = 0xff, max = 0;
    bool has_byte = false, ends = false;
  };
  Seen seen_[KeyMap::kWindow + 1];
};

}  // namespace sstfilter
