// compat=builtin (plugin/rocksdb_adapter/builtin_family.h) through RocksDB's own
// filter interfaces, with the built-in readers of the RocksDB we link:
// every sstfilter kind and size reads as "may match" for every key under
// RocksDB's built-in Bloom and Ribbon readers (the switch back is never
// wrong), and our policy reads built-in filters as RocksDB does (the
// switch to sstfilter keeps old filters).

#include <gtest/gtest.h>
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>
#include <sstfilter/sstfilter.h>

#include <memory>
#include <string>
#include <vector>

#include "filters/filter_spec.h"
#include "rocksdb_adapter/rocksdb_internal.h"

namespace sstfilter {
namespace {

std::string Key(uint64_t i) { return "k" + std::to_string(i); }

// The filter `policy` builds over keys [0, n), with its own builder.
std::string Build(const rocksdb::FilterPolicy& policy, uint64_t n) {
  rocksdb::BlockBasedTableOptions table;
  std::unique_ptr<rocksdb::FilterBitsBuilder> builder(
      policy.GetBuilderWithContext(rocksdb::FilterBuildingContext(table)));
  EXPECT_NE(builder, nullptr);
  if (builder == nullptr) return "";
  for (uint64_t i = 0; i < n; ++i) builder->AddKey(Key(i));
  std::unique_ptr<const char[]> buf;
  const rocksdb::Slice filter = builder->Finish(&buf);
  return filter.ToString();
}

// How many of keys [first, first + count) `reader` rules out.
uint64_t Rejected(rocksdb::FilterBitsReader* reader, uint64_t first, uint64_t count) {
  uint64_t no = 0;
  for (uint64_t i = first; i < first + count; ++i) no += !reader->MayMatch(Key(i));
  return no;
}

std::vector<std::shared_ptr<const rocksdb::FilterPolicy>> BuiltinPolicies() {
  return {std::shared_ptr<const rocksdb::FilterPolicy>(rocksdb::NewBloomFilterPolicy(10)),
          std::shared_ptr<const rocksdb::FilterPolicy>(rocksdb::NewRibbonFilterPolicy(10))};
}

TEST(BuiltinFamilyTest, BuiltinReadersNeverRuleOutAnyKeyOfOurs) {
  const auto builtins = BuiltinPolicies();
  int filters = 0;
  for (FilterType type : AllFilterTypes()) {
    for (double bits : {MinBitsPerKey(type), 10.0, 16.0, MaxBitsPerKey(type)}) {
      std::shared_ptr<const rocksdb::FilterPolicy> ours;
      ASSERT_TRUE(NewFilterPolicy(FilterTypeName(type), bits, Compat::kBuiltin, &ours).ok());
      EXPECT_STREQ(ours->CompatibilityName(), builtins[0]->CompatibilityName());
      for (uint64_t n : {0, 1, 2, 3, 7, 50, 1000, 20000}) {
        const std::string filter = Build(*ours, n);
        for (const auto& builtin : builtins) {
          std::unique_ptr<rocksdb::FilterBitsReader> reader(
              builtin->GetFilterBitsReader(filter));
          // Added keys and as many never added: not one "no".
          EXPECT_EQ(Rejected(reader.get(), 0, 2 * n + 1000), 0u)
              << FilterTypeName(type) << ":" << bits << ", " << n << " keys, read by "
              << builtin->Name();
        }
        // And our own policy still reads it, ruling keys out.
        std::unique_ptr<rocksdb::FilterBitsReader> own(ours->GetFilterBitsReader(filter));
        EXPECT_EQ(Rejected(own.get(), 0, n), 0u);
        if (n >= 1000 && bits >= 10) {  // FPR under 10%
          EXPECT_GT(Rejected(own.get(), n, 10000), 9000u);
        }
        ++filters;
      }
    }
  }
  EXPECT_EQ(filters, static_cast<int>(AllFilterTypes().size()) * 4 * 8);
}

TEST(BuiltinFamilyTest, ReadsBuiltinFiltersAsRocksDBDoes) {
  for (const auto& builtin : BuiltinPolicies()) {
    for (FilterType type : AllFilterTypes()) {
      std::shared_ptr<const rocksdb::FilterPolicy> ours;
      ASSERT_TRUE(NewFilterPolicy(FilterTypeName(type), 12, Compat::kBuiltin, &ours).ok());
      const uint64_t n = 20000;
      const std::string filter = Build(*builtin, n);
      std::unique_ptr<rocksdb::FilterBitsReader> theirs(builtin->GetFilterBitsReader(filter));
      std::unique_ptr<rocksdb::FilterBitsReader> via_ours(ours->GetFilterBitsReader(filter));
      EXPECT_EQ(Rejected(via_ours.get(), 0, n), 0u);
      // The same answer for every absent key: it is RocksDB's reader.
      uint64_t differ = 0;
      for (uint64_t i = n; i < n + 20000; ++i) {
        differ += theirs->MayMatch(Key(i)) != via_ours->MayMatch(Key(i));
      }
      EXPECT_EQ(differ, 0u) << builtin->Name();
      EXPECT_GT(Rejected(via_ours.get(), n, 20000), 19000u) << builtin->Name();
    }
  }
}

TEST(BuiltinFamilyTest, DefaultFamilyNeverHandsBytesToTheBuiltinReader) {
  // Without compat=builtin a built-in filter's bytes are not ours: "may match".
  std::shared_ptr<const rocksdb::FilterPolicy> builtin(rocksdb::NewBloomFilterPolicy(10));
  std::shared_ptr<const rocksdb::FilterPolicy> ours;
  ASSERT_TRUE(NewFilterPolicy("cuckoo", 12, &ours).ok());
  EXPECT_STREQ(ours->CompatibilityName(), "sstfilter");
  const std::string filter = Build(*builtin, 5000);
  std::unique_ptr<rocksdb::FilterBitsReader> reader(ours->GetFilterBitsReader(filter));
  EXPECT_EQ(Rejected(reader.get(), 5000, 5000), 0u);
}

TEST(BuiltinFamilyTest, CompatOptionParsesAndRoundTrips) {
  rocksdb::ConfigOptions config;
  std::shared_ptr<const rocksdb::FilterPolicy> policy;
  ASSERT_TRUE(rocksdb::FilterPolicy::CreateFromString(
                  config, "{id=sstfilter.cuckoo;bits_per_key=12;compat=builtin}", &policy)
                  .ok());
  ASSERT_NE(policy, nullptr);
  EXPECT_STREQ(policy->CompatibilityName(),
               std::unique_ptr<const rocksdb::FilterPolicy>(rocksdb::NewBloomFilterPolicy(10))
                   ->CompatibilityName());
  std::string value;
  ASSERT_TRUE(policy->GetOption(config, "compat", &value).ok());
  EXPECT_EQ(value, "builtin");
  const rocksdb::Status bad = rocksdb::FilterPolicy::CreateFromString(
      config, "{id=sstfilter.cuckoo;bits_per_key=12;compat=bultin}", &policy);
  EXPECT_TRUE(bad.IsInvalidArgument()) << bad.ToString();
  EXPECT_NE(bad.ToString().find("compat"), std::string::npos) << bad.ToString();
}

}  // namespace
}  // namespace sstfilter
