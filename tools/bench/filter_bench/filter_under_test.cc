#include "filter_under_test.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include <sstfilter/sstfilter.h>

#include "filters/filter_spec.h"
#include "timing.h"

namespace filter_bench {
namespace {

struct KnownFilter {
  std::string name;
  std::string description;
};

// sstfilter's registered filters, then RocksDB's built-ins.
const std::vector<KnownFilter>& KnownFilters() {
  static const std::vector<KnownFilter> filters = [] {
    std::vector<KnownFilter> v;
    for (sstfilter::FilterType type : sstfilter::AllFilterTypes()) {
      const std::string name = sstfilter::FilterTypeName(type);
      v.push_back({name, std::string(sstfilter::FilterTypeDescription(type)) + " (sstfilter." +
                             name + ")"});
    }
    v.push_back({"rocksdb_bloom",
                 "RocksDB's FastLocalBloom, rocksdb::NewBloomFilterPolicy(bpk): the "
                 "baseline of every ratio"});
    v.push_back({"rocksdb_ribbon",
                 "RocksDB's Standard128Ribbon, rocksdb::NewRibbonFilterPolicy(bpk, -1). "
                 "bpk is its Bloom-EQUIVALENT setting: it aims at rocksdb_bloom's FPR at "
                 "that bpk with about 30% fewer bits, so read its bits/key column, not "
                 "its bpk"});
    return v;
  }();
  return filters;
}

}  // namespace

const std::vector<std::string>& KnownFilterNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const KnownFilter& f : KnownFilters()) v.push_back(f.name);
    return v;
  }();
  return names;
}

std::string FilterChoice::Text() const {
  if (bpk == 0) return name;
  std::ostringstream out;
  out << name << "@" << bpk;
  return out.str();
}

bool ParsePositiveNumber(const std::string& text, double* value) {
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0' && std::isfinite(*value) && *value > 0;
}

bool ParseFilterChoice(const std::string& text, FilterChoice* choice, std::string* error) {
  const size_t at = text.find('@');
  choice->name = text.substr(0, at);
  choice->bpk = 0;
  const auto& names = KnownFilterNames();
  if (std::find(names.begin(), names.end(), choice->name) == names.end()) {
    *error = "unknown filter '" + choice->name + "'";
    return false;
  }
  if (at == std::string::npos) return true;
  if (!ParsePositiveNumber(text.substr(at + 1), &choice->bpk)) {
    *error = "'" + text + "': the bits/key after @ is not a positive number";
    return false;
  }
  return true;
}

std::string DescribeKnownFilters() {
  std::ostringstream out;
  for (const KnownFilter& f : KnownFilters()) {
    out << "  " << f.name << ": " << f.description << "\n";
  }
  return out.str();
}

BuiltFilter::BuiltFilter(std::unique_ptr<const char[]> bytes,
                         rocksdb::Slice contents,
                         std::unique_ptr<rocksdb::FilterBitsReader> reader)
    : bytes_(std::move(bytes)), contents_(contents), reader_(std::move(reader)) {}

FilterUnderTest::FilterUnderTest(
    std::string name, double bits_per_key,
    std::shared_ptr<const rocksdb::FilterPolicy> policy)
    : name_(std::move(name)), bits_per_key_(bits_per_key), policy_(std::move(policy)) {}

std::unique_ptr<FilterUnderTest> FilterUnderTest::Create(
    const std::string& name, double bits_per_key, std::string* error) {
  std::shared_ptr<const rocksdb::FilterPolicy> policy;
  if (name == "rocksdb_bloom") {
    policy.reset(rocksdb::NewBloomFilterPolicy(bits_per_key));
  } else if (name == "rocksdb_ribbon") {
    // bloom_before_level = -1: Ribbon at every level, never its Bloom
    // fallback for flushes.
    policy.reset(rocksdb::NewRibbonFilterPolicy(bits_per_key, -1));
  } else {
    const rocksdb::Status s =
        sstfilter::NewFilterPolicy(name, bits_per_key, &policy);
    if (!s.ok()) {
      *error = s.ToString();
      return nullptr;
    }
  }
  if (policy == nullptr) {
    *error = "no filter policy for '" + name + "'";
    return nullptr;
  }
  return std::unique_ptr<FilterUnderTest>(
      new FilterUnderTest(name, bits_per_key, std::move(policy)));
}

BuiltFilter FilterUnderTest::Build(const KeyBatch& keys,
                                   double* build_seconds) const {
  std::unique_ptr<const char[]> bytes;
  rocksdb::Slice contents;
  Stopwatch timer;
  {
    std::unique_ptr<rocksdb::FilterBitsBuilder> builder(
        policy_->GetBuilderWithContext(
            rocksdb::FilterBuildingContext(table_options_)));
    for (size_t i = 0; i < keys.size(); ++i) builder->AddKey(keys.key(i));
    contents = builder->Finish(&bytes);
  }
  *build_seconds += timer.Seconds();
  // Query every filter from a copy that starts on a cache-line boundary.
  // Where Finish's buffer happens to start decides whether a 64-byte
  // filter line spans one cache line or two; RocksDB reads filters into
  // buffers of its own anyway. Same placement for every filter: fair.
  constexpr uintptr_t kCacheLine = 64;
  std::unique_ptr<char[]> copy(new char[contents.size() + kCacheLine]);
  char* aligned = copy.get() + (kCacheLine - reinterpret_cast<uintptr_t>(copy.get()) % kCacheLine) % kCacheLine;
  std::memcpy(aligned, contents.data(), contents.size());
  contents = rocksdb::Slice(aligned, contents.size());
  bytes.reset(copy.release());
  std::unique_ptr<rocksdb::FilterBitsReader> reader(
      policy_->GetFilterBitsReader(contents));
  return BuiltFilter(std::move(bytes), contents, std::move(reader));
}

}  // namespace filter_bench
