// How each LevelDB filter is made: hash the keys, take LevelDB's Bloom
// size for them as the budget, pick the most accurate filter that fits it
// (the small form, or the type's own filter, whose builder's bits/key is
// derived per call from the budget and the distinct key count), build,
// append.

#include "leveldb/leveldb_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include <sstfilter/leveldb.h>

#include "filters/bloom.h"
#include "filters/cuckoo_filter.h"
#include "filters/fuse_filter.h"
#include "filters/small_filter.h"
#include "format/hash.h"
#include "format/trailer.h"

namespace sstfilter {
namespace {

constexpr size_t kBloomLineBytes = 64;  // bloom.h: multiples of 64 bytes are whole lines
// Effective bits/key are rounded down to a multiple of 1/kBitsPerKeySteps,
// which keeps the per-thread builder cache small and costs at most one
// payload byte per 128 keys.
constexpr double kBitsPerKeySteps = 16;

double QuantizeDown(double bits_per_key) {
  return std::floor(bits_per_key * kBitsPerKeySteps) / kBitsPerKeySteps;
}

// Builders are reused per thread: constructing a Bloom builder computes its
// optimal probe count (about 20 us), more than building a typical
// 35-key LevelDB filter. One builder per (type, quantized
// bits/key): at most 1600 per type and thread. A builder is empty between
// uses (Finish empties it), so reuse carries nothing over.
struct CachedBuilder {
  std::unique_ptr<FilterBuilder> builder;
  int bloom_probes = 0;       // Bloom only
  double lines_fpr = -1;      // Bloom only: expected FPR of whole lines, lazily
};

CachedBuilder& BuilderFor(FilterType type, double quantized_bits_per_key) {
  thread_local std::unordered_map<uint32_t, CachedBuilder> cache;
  const auto steps = static_cast<uint32_t>(quantized_bits_per_key * kBitsPerKeySteps);
  CachedBuilder& entry = cache[(static_cast<uint32_t>(type) << 16) | steps];
  if (!entry.builder) {
    if (type == FilterType::kBloom) {
      auto bloom = std::make_unique<BloomBuilder>(quantized_bits_per_key,
                                                  BloomSizing::kExactBytes);
      entry.bloom_probes = bloom->probes();
      entry.builder = std::move(bloom);
    } else {
      entry.builder = NewFilterBuilder({type, quantized_bits_per_key});
      // CreateFilter chooses the small form itself, against its budget.
      entry.builder->AllowSmallForm(false);
    }
  }
  return entry;
}

// A builder for one filter and the FPR expected of what it builds.
struct Choice {
  FilterBuilder* builder = nullptr;
  double expected_fpr = 1;
};

// A Bloom filter of `bits` bits in one line holding `keys` keys.
double OneLineBloomFpr(double bits, double keys, int probes) {
  return std::pow(1 - std::pow(1 - 1 / bits, probes * keys), probes);
}

// The Bloom filter over `num_hashes` hashes filling `payload_budget` bytes,
// sized exactly (bloom.h: usually one single line). Below kMinBitsPerKey
// the budget cannot be met and the minimum is used (leveldb.h states this).
Choice ChooseBloom(size_t payload_budget, size_t num_hashes) {
  if (num_hashes == 0) return {BuilderFor(FilterType::kBloom, kMaxBitsPerKey).builder.get(), 0};
  const double bits_per_key = std::clamp(
      QuantizeDown(8.0 * static_cast<double>(payload_budget) / static_cast<double>(num_hashes)),
      kMinBitsPerKey, kMaxBitsPerKey);
  CachedBuilder& entry = BuilderFor(FilterType::kBloom, bits_per_key);
  const size_t payload = entry.builder->FilterSize(num_hashes) - kTrailerSize;
  double fpr = 0;
  if (payload % kBloomLineBytes != 0) {  // one single line
    fpr = OneLineBloomFpr(8.0 * static_cast<double>(payload),
                          static_cast<double>(num_hashes), entry.bloom_probes);
  } else {
    if (entry.lines_fpr < 0) entry.lines_fpr = BloomExpectedFpr(bits_per_key, entry.bloom_probes);
    fpr = entry.lines_fpr;
  }
  return {entry.builder.get(), fpr};
}

// The cuckoo filter of `type` filling `payload_budget` bytes; no builder if
// no table of at least the type's minimum bits/key fits.
Choice ChooseCuckoo(FilterType type, size_t payload_budget, size_t num_hashes) {
  if (num_hashes == 0) return {};  // an empty Bloom filter is smallest
  const double bits_per_key = std::min(
      kMaxBitsPerKey,
      QuantizeDown(8.0 * static_cast<double>(payload_budget) / static_cast<double>(num_hashes)));
  if (bits_per_key < MinBitsPerKey(type)) return {};
  FilterBuilder* builder = BuilderFor(type, bits_per_key).builder.get();
  // Tiny key counts get the smallest table that holds them, which may
  // exceed the budget.
  if (builder->FilterSize(num_hashes) > payload_budget + kTrailerSize) return {};
  const CuckooShape shape = ChooseCuckooShape(num_hashes, bits_per_key, CuckooVariantOf(type));
  return {builder, CuckooExpectedFpr(shape, num_hashes)};
}

// The fuse builder filling `payload_budget` bytes; no builder if the
// budget is under the fuse minimum. The fuse builder itself writes a
// cuckoo or Bloom filter where either is more accurate, which at LevelDB's
// usual few dozen keys a filter is almost always: a fuse filter pays off
// from about 1,500 keys at 10 bits/key, 10,000 at 16.
Choice ChooseFuse(size_t payload_budget, size_t num_hashes) {
  if (num_hashes == 0) return {};
  const double bits_per_key = std::min(
      kMaxBitsPerKey,
      QuantizeDown(8.0 * static_cast<double>(payload_budget) / static_cast<double>(num_hashes)));
  if (bits_per_key < kMinFuseBitsPerKey) return {};
  // BuilderFor makes fuse builders for FilterType::kFuse.
  auto* builder =
      static_cast<FuseBuilder*>(BuilderFor(FilterType::kFuse, bits_per_key).builder.get());
  if (builder->FilterSize(num_hashes) > payload_budget + kTrailerSize) return {};
  return {builder, builder->ExpectedFpr(num_hashes)};
}

void BuildFilter(FilterBuilder* builder, const std::vector<uint64_t>& hashes,
                 std::string* dst) {
  if (builder->NumHashes() != 0) {  // left over by an exception mid-build
    std::string discard;
    builder->Finish(&discard);
  }
  for (uint64_t h : hashes) builder->AddHash(h);
  builder->Finish(dst);
}

std::string PolicyError(const std::string& type, double bits_per_key,
                        FilterSpec* spec) {
  const std::string prefix = "sstfilter.";
  const std::string name =
      type.compare(0, prefix.size(), prefix) == 0 ? type.substr(prefix.size()) : type;
  if (!FilterTypeFromName(name, &spec->type)) {
    return "unknown sstfilter LevelDB filter type '" + type +
           "'; known: bloom, cuckoo, cuckoo_plain, cuckoo_semisorted, fuse";
  }
  spec->bits_per_key = bits_per_key;
  return ValidateFilterSpec(*spec);
}

std::unique_ptr<const leveldb::FilterPolicy> NewOrThrow(const char* type,
                                                        double bits_per_key) {
  std::unique_ptr<const leveldb::FilterPolicy> policy;
  const leveldb::Status s = NewLevelDBFilterPolicy(type, bits_per_key, &policy);
  if (!s.ok()) throw std::invalid_argument(s.ToString());
  return policy;
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
  const size_t payload_budget = budget - kTrailerSize;  // budget >= 9

  const Choice bloom = ChooseBloom(payload_budget, hashes.size());
  Choice other;
  if (spec_.type != FilterType::kBloom) {
    other = spec_.type == FilterType::kFuse
                ? ChooseFuse(payload_budget, hashes.size())
                : ChooseCuckoo(spec_.type, payload_budget, hashes.size());
  }
  // Up to kMaxSmallKeys keys the small form, in the whole budget, is
  // usually the most accurate: its 2- or 3-byte trailer leaves 5 or 6
  // more bytes to the keys, and it needs about 2 bits/key over
  // log2(1/FPR).
  const double best_fpr = std::min(bloom.expected_fpr, other.expected_fpr);
  if (SmallExpectedFpr(hashes.size(), budget) < best_fpr &&
      AppendSmallFilter(hashes, budget, dst)) {
    return;
  }
  if (spec_.type != FilterType::kBloom) {
    // In small filters a cuckoo table is often less accurate than a Bloom
    // filter of the same bytes (at 10 bits/key, below about 60 keys); the
    // policy then writes the Bloom filter. (The fuse builder's expected
    // FPR is already that of what it writes: fuse, cuckoo or Bloom.)
    if (other.builder != nullptr && other.expected_fpr < bloom.expected_fpr) {
      const size_t start = dst->size();
      BuildFilter(other.builder, hashes, dst);
      if (dst->size() - start <= budget) return;
      // Cuckoo placement needed a stash or a larger table: over budget, so
      // Bloom.
      dst->resize(start);
    }
  }
  BuildFilter(bloom.builder, hashes, dst);
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
  return NewOrThrow("bloom", bits_per_key);
}

std::unique_ptr<const leveldb::FilterPolicy> NewLevelDBCuckooFilterPolicy(
    double bits_per_key) {
  return NewOrThrow("cuckoo", bits_per_key);
}

}  // namespace sstfilter
