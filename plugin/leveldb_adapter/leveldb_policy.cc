// How each LevelDB filter is made: hash the keys, take LevelDB's Bloom
// size for them as the budget, ask the planner for the most accurate
// filter that fits it (PlanInBytes: the small form, the type's own filter
// or a Bloom filter, at the bits/key the budget gives the distinct keys),
// write it, append.

#include "leveldb_adapter/leveldb_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <sstfilter/leveldb.h>

#include "filters/planner.h"
#include "filters/small_filter.h"
#include "format/hash.h"
#include "format/trailer.h"

namespace sstfilter {
namespace {

std::string PolicyError(const std::string& type, double bits_per_key,
                        FilterSpec* spec) {
  const std::string prefix = "sstfilter.";
  const std::string name =
      type.compare(0, prefix.size(), prefix) == 0 ? type.substr(prefix.size()) : type;
  if (!FilterTypeFromName(name, &spec->type)) {
    return "unknown sstfilter LevelDB filter type '" + type + "'; known: " + FilterTypeNames();
  }
  spec->bits_per_key = bits_per_key;
  return ValidateFilterSpec(*spec);
}

}  // namespace

size_t LevelDBBloomFilterBytes(size_t num_keys, double bits_per_key) {
  const double bits = std::max(
      64.0, std::floor(static_cast<double>(num_keys) * bits_per_key));
  return static_cast<size_t>(std::ceil(bits / 8)) + 1;
}

LevelDBFilterPolicy::LevelDBFilterPolicy(const FilterSpec& spec) : spec_(spec) {}

void LevelDBFilterPolicy::CreateFilter(const leveldb::Slice* keys, int n,
                                       std::string* dst) const {
  const size_t num_keys = n > 0 ? static_cast<size_t>(n) : 0;
  // LevelDB's budget counts keys as passed, repeats included; our builders
  // drop adjacent repeats (LevelDB passes keys sorted), so the effective
  // bits/key come from the distinct count.
  thread_local std::vector<uint64_t> hashes;
  hashes.clear();
  for (size_t i = 0; i < num_keys; ++i) {
    const uint64_t h = KeyHash(keys[i].data(), keys[i].size());
    if (hashes.empty() || hashes.back() != h) hashes.push_back(h);
  }
  const size_t budget = LevelDBBloomFilterBytes(num_keys, spec_.bits_per_key);
  const FilterPlan own = PlanInBytes(spec_.type, hashes.size(), budget, /*small_form=*/false);
  if (WithSmallForm(own, hashes.size(), budget).kind == kSmallFormKind &&
      AppendSmallFilter(hashes, budget, dst)) {
    return;
  }
  const size_t start = dst->size();
  WritePlannedFilter(own, &hashes, dst);
  if (dst->size() - start <= budget) return;
  // Cuckoo placement needed a stash or a larger table: over budget, so the
  // Bloom filter of the budget. (A cuckoo table is written from the hashes
  // without changing them.)
  dst->resize(start);
  WritePlannedFilter(PlanInBytes(FilterType::kBloom, hashes.size(), budget, false), &hashes, dst);
}

bool LevelDBFilterPolicy::KeyMayMatch(const leveldb::Slice& key,
                                      const leveldb::Slice& filter) const {
  return FilterMayMatch(filter.data(), filter.size(),
                        KeyHash(key.data(), key.size()));
}

leveldb::Status NewLevelDBFilterPolicy(
    const std::string& type, double bits_per_key,
    std::unique_ptr<const leveldb::FilterPolicy>* policy) {
  FilterSpec spec;
  const std::string error = PolicyError(type, bits_per_key, &spec);
  if (!error.empty()) return leveldb::Status::InvalidArgument(error);
  *policy = std::make_unique<LevelDBFilterPolicy>(spec);
  return leveldb::Status::OK();
}

std::unique_ptr<const leveldb::FilterPolicy> NewLevelDBBloomFilterPolicy(
    double bits_per_key) {
  return std::make_unique<LevelDBFilterPolicy>(FilterSpecOrThrow("bloom", bits_per_key));
}

std::unique_ptr<const leveldb::FilterPolicy> NewLevelDBCuckooFilterPolicy(
    double bits_per_key) {
  return std::make_unique<LevelDBFilterPolicy>(FilterSpecOrThrow("cuckoo", bits_per_key));
}

}  // namespace sstfilter
