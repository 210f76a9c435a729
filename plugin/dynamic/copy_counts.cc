#include "dynamic/copy_counts.h"

#include <algorithm>
#include <utility>

#include "format/hash.h"

namespace sstfilter {
namespace dynamic_cuckoo {

size_t CopyCounts::Home(uint64_t a, uint32_t b) const {
  return static_cast<size_t>(Mix64(a ^ (uint64_t{b} * 0x9e3779b97f4a7c15ULL)) &
                             (cells_.size() - 1));
}

size_t CopyCounts::Find(uint64_t a, uint32_t b) const {
  const size_t mask = cells_.size() - 1;
  size_t i = Home(a, b);
  while (cells_[i].count != 0 && !(cells_[i].a == a && cells_[i].b == b)) i = (i + 1) & mask;
  return i;
}

uint32_t CopyCounts::Get(uint64_t a, uint32_t b) const {
  if (used_ == 0) return 0;
  return cells_[Find(a, b)].count;
}

void CopyCounts::Add(uint64_t a, uint32_t b, uint32_t n) {
  if (cells_.empty() || 4 * (used_ + 1) > 3 * cells_.size()) Grow();
  Entry& e = cells_[Find(a, b)];
  if (e.count == 0) {
    e = {a, b, 0};
    ++used_;
  }
  e.count += n;
}

bool CopyCounts::Remove(uint64_t a, uint32_t b) {
  if (used_ == 0) return false;
  size_t i = Find(a, b);
  if (cells_[i].count == 0) return false;
  if (--cells_[i].count != 0) return true;
  EraseCell(i);
  return true;
}

uint32_t CopyCounts::Take(uint64_t a, uint32_t b) {
  if (used_ == 0) return 0;
  const size_t i = Find(a, b);
  const uint32_t n = cells_[i].count;
  if (n != 0) EraseCell(i);
  return n;
}

void CopyCounts::EraseCell(size_t i) {
  cells_[i].count = 0;
  --used_;
  // Backward shift: pull later cells of the run into the hole when their
  // home is not between the hole and them, so that every key stays
  // reachable from its home without tombstones.
  const size_t mask = cells_.size() - 1;
  for (size_t j = (i + 1) & mask; cells_[j].count != 0; j = (j + 1) & mask) {
    const size_t home = Home(cells_[j].a, cells_[j].b);
    const bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (stays) continue;
    cells_[i] = cells_[j];
    cells_[j].count = 0;
    i = j;
  }
}

std::vector<CopyCounts::Entry> CopyCounts::Sorted() const {
  std::vector<Entry> out;
  out.reserve(used_);
  for (const Entry& e : cells_) {
    if (e.count != 0) out.push_back(e);
  }
  std::sort(out.begin(), out.end(), [](const Entry& x, const Entry& y) {
    return x.a != y.a ? x.a < y.a : x.b < y.b;
  });
  return out;
}

void CopyCounts::Grow() {
  std::vector<Entry> old = std::move(cells_);
  cells_.assign(old.empty() ? 16 : 2 * old.size(), Entry{0, 0, 0});
  for (const Entry& e : old) {
    if (e.count != 0) cells_[Find(e.a, e.b)] = e;
  }
}

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
