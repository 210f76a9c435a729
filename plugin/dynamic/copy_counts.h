// CopyCounts: a small exact multiset of (a, b) keys, a 64-bit and a 32-bit
// part, with a count of 1 to 2^32 - 1 each. The growing filter keeps the
// copies of a key held beyond its table's slots in one (first bucket and
// payload -> copies, growing_filter.h).
//
// Open addressing with linear probing and backward-shift deletion, 16-byte
// cells, doubled past 3/4 full: 21-43 bytes per key, 16 when full. Writer
// only; nothing here is read concurrently.

#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sstfilter {
namespace dynamic_cuckoo {

class CopyCounts {
 public:
  struct Entry {
    uint64_t a;
    uint32_t b;
    uint32_t count;  // >= 1
  };

  uint32_t Get(uint64_t a, uint32_t b) const;
  void Add(uint64_t a, uint32_t b, uint32_t n = 1);
  // Removes one count; false (nothing changed) if the key has none.
  bool Remove(uint64_t a, uint32_t b);
  // Removes every count of the key and returns how many there were.
  uint32_t Take(uint64_t a, uint32_t b);

  size_t size() const { return used_; }
  bool empty() const { return used_ == 0; }
  size_t MemoryBytes() const { return cells_.size() * sizeof(Entry); }
  // Every entry, sorted by (a, b): the order Save writes.
  std::vector<Entry> Sorted() const;
  void Clear() {
    cells_.clear();
    used_ = 0;
  }

 private:
  size_t Home(uint64_t a, uint32_t b) const;
  // The cell holding (a, b), or the empty cell where it would go.
  size_t Find(uint64_t a, uint32_t b) const;
  // Empties the used cell i.
  void EraseCell(size_t i);
  void Grow();

  std::vector<Entry> cells_;  // count 0: empty; size a power of two
  size_t used_ = 0;
};

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
