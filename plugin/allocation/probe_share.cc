#include "allocation/probe_share.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace sstfilter {
namespace {

size_t CommonPrefix(const std::string& a, const std::string& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

// The 8 bytes of `key` after its first `prefix`, big-endian, 0 past its end:
// a number that never decreases as keys grow bytewise, among keys that
// share that prefix.
double Position(const std::string& key, size_t prefix) {
  uint64_t v = 0;
  for (size_t i = prefix; i < prefix + 8; ++i) {
    v = (v << 8) | (i < key.size() ? static_cast<unsigned char>(key[i]) : 0u);
  }
  return static_cast<double>(v);
}

// The share of reference file `f`'s keys within [lo, hi].
double Inside(const FileRange& f, const std::string& lo, const std::string& hi) {
  if (hi < f.smallest || f.largest < lo) return 0;
  const std::string& a = std::max(lo, f.smallest);
  const std::string& b = std::min(hi, f.largest);
  const size_t prefix = CommonPrefix(f.smallest, f.largest);
  const double span = Position(f.largest, prefix) - Position(f.smallest, prefix);
  if (!(span > 0)) return 1;
  return std::clamp((Position(b, prefix) - Position(a, prefix)) / span, 0.0, 1.0);
}

}  // namespace

double ReferenceKeys(const std::vector<FileRange>& reference) {
  double total = 0;
  for (const FileRange& f : reference) total += std::max(f.keys, 0.0);
  return total;
}

double ProbeShare(const std::vector<FileRange>& reference, const std::vector<FileRange>& ranges) {
  return ProbeShare(reference, ReferenceKeys(reference), ranges);
}

double ProbeShare(const std::vector<FileRange>& reference, double total,
                  const std::vector<FileRange>& ranges) {
  if (!(total > 0)) return 1;
  // The union of `ranges`, as disjoint ranges in key order (pointers into
  // `ranges`: no key is copied).
  std::vector<const FileRange*> order;
  order.reserve(ranges.size());
  for (const FileRange& r : ranges) order.push_back(&r);
  std::sort(order.begin(), order.end(),
            [](const FileRange* x, const FileRange* y) { return x->smallest < y->smallest; });
  std::vector<std::pair<const std::string*, const std::string*>> merged;
  for (const FileRange* r : order) {
    if (!merged.empty() && !(*merged.back().second < r->smallest)) {
      if (*merged.back().second < r->largest) merged.back().second = &r->largest;
    } else {
      merged.emplace_back(&r->smallest, &r->largest);
    }
  }
  // Each merged range meets the reference files from the first that does
  // not end before it (a binary search: the files are in key order) to the
  // last that starts within it. Ranges come in key order, so a file is met
  // by consecutive ranges, and its share is summed (at most 1) before the
  // next file's.
  double covered = 0, inside = 0;
  size_t current = reference.size();  // the file `inside` sums for
  const auto count_current = [&] {
    if (current < reference.size()) {
      covered += std::max(reference[current].keys, 0.0) * std::min(inside, 1.0);
    }
  };
  for (const auto& range : merged) {
    const std::string& lo = *range.first;
    const std::string& hi = *range.second;
    auto it = std::partition_point(reference.begin(), reference.end(),
                                   [&](const FileRange& f) { return f.largest < lo; });
    for (; it != reference.end() && !(hi < it->smallest); ++it) {
      const auto i = static_cast<size_t>(it - reference.begin());
      if (i != current) {
        count_current();
        current = i;
        inside = 0;
      }
      inside += Inside(*it, lo, hi);
    }
  }
  count_current();
  return std::clamp(covered / total, 0.0, 1.0);
}

double PlannedProbeShare(double share, double keys, double total_keys) {
  return std::min(1.0, std::max(share, total_keys > 0 ? keys / total_keys : 0.0));
}

}  // namespace sstfilter
