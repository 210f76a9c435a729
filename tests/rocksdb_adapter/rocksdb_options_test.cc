// sstfilter policies as users configure them: C++ factories, options
// strings, OPTIONS-file round trips, and clear errors for bad input.

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>
#include <sstfilter/sstfilter.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "rocksdb_adapter/rocksdb_internal.h"
#include "bad_policy_inputs.h"
#include "rocksdb_test_util.h"

namespace sstfilter {
namespace {

using test::BadInput;
using test::ErrorOf;
using test::FromString;
using test::kBadInputs;

double BitsPerKeyOf(const rocksdb::FilterPolicy& policy) {
  std::string value;
  EXPECT_TRUE(policy.GetOption(rocksdb::ConfigOptions(), "bits_per_key", &value).ok());
  return std::stod(value);
}

TEST(OptionsTest, CxxFactories) {
  auto cuckoo = NewCuckooFilterPolicy(12);
  ASSERT_NE(cuckoo, nullptr);
  EXPECT_STREQ(cuckoo->Name(), "sstfilter.cuckoo");
  EXPECT_STREQ(cuckoo->CompatibilityName(), "sstfilter");
  EXPECT_EQ(BitsPerKeyOf(*cuckoo), 12);
  auto bloom = NewBloomFilterPolicy(9.5);
  EXPECT_STREQ(bloom->Name(), "sstfilter.bloom");
  EXPECT_EQ(BitsPerKeyOf(*bloom), 9.5);
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy = NewCuckooFilterPolicy(16);  // assignable, as documented
  EXPECT_TRUE(IsSstFilterPolicy(table.filter_policy.get()));
  std::shared_ptr<const rocksdb::FilterPolicy> builtin(rocksdb::NewBloomFilterPolicy(10));
  EXPECT_FALSE(IsSstFilterPolicy(builtin.get()));
}

TEST(OptionsTest, CxxFactoriesRejectBadBitsPerKey) {
  for (double bad : {0.0, -1.0, 0.5, 100.5, std::nan(""),
                     std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW(NewBloomFilterPolicy(bad), std::invalid_argument) << bad;
    EXPECT_THROW(NewCuckooFilterPolicy(bad), std::invalid_argument) << bad;
    std::shared_ptr<const rocksdb::FilterPolicy> p;
    EXPECT_TRUE(NewFilterPolicy("cuckoo", bad, &p).IsInvalidArgument()) << bad;
    EXPECT_EQ(p, nullptr);
  }
  EXPECT_THROW(NewCuckooFilterPolicy(3.5), std::invalid_argument);  // below cuckoo's 4
  try {
    NewCuckooFilterPolicy(3.5);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sstfilter.cuckoo: bits_per_key 3.5 is out of range; "
                                         "it must be a number from 4 to 100"),
              std::string::npos)
        << e.what();
  }
  std::shared_ptr<const rocksdb::FilterPolicy> p;
  rocksdb::Status s = NewFilterPolicy("burr", 120, &p);
  EXPECT_NE(s.ToString().find("sstfilter.burr: bits_per_key 120 is out of range; it must be a "
                              "number from "),
            std::string::npos)
      << s.ToString();
  s = NewFilterPolicy("cukoo", 10, &p);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("unknown sstfilter policy 'cukoo'; known: sstfilter.bloom"),
            std::string::npos)
      << s.ToString();
  EXPECT_EQ(p, nullptr);
}

TEST(OptionsTest, EveryIdFormParses) {
  struct Case {
    const char* text;
    const char* name;
    double bits_per_key;
  };
  for (const Case& c : {Case{"sstfilter.cuckoo:12", "sstfilter.cuckoo", 12},
                        Case{"sstfilter.bloom:9.5", "sstfilter.bloom", 9.5},
                        Case{"sstfilter.bloom", "sstfilter.bloom", 10},
                        Case{"{id=sstfilter.cuckoo;bits_per_key=12}", "sstfilter.cuckoo", 12},
                        Case{"{id=sstfilter.cuckoo_plain;bits_per_key=7.25}",
                             "sstfilter.cuckoo_plain", 7.25},
                        Case{"sstfilter.cuckoo_semisorted:16", "sstfilter.cuckoo_semisorted", 16}}) {
    rocksdb::Status s;
    const auto policy = FromString(c.text, &s);
    ASSERT_TRUE(s.ok()) << c.text << ": " << s.ToString();
    ASSERT_NE(policy, nullptr) << c.text;
    EXPECT_STREQ(policy->Name(), c.name);
    EXPECT_EQ(BitsPerKeyOf(*policy), c.bits_per_key) << c.text;
  }
}

TEST(OptionsTest, BadInputIsAClearError) {
  for (const BadInput& bad : kBadInputs) {
    std::shared_ptr<const rocksdb::FilterPolicy> policy;
    const rocksdb::Status s = ErrorOf(bad.text, &policy);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad.text << ": " << s.ToString();
    EXPECT_NE(s.ToString().find(bad.says), std::string::npos)
        << bad.text << " says: " << s.ToString();
    // Whatever object RocksDB hands back fails a table's build with the
    // same words, where no ValidateOptions ran (SstFileWriter:
    // rocksdb_refused_policy_test.cc).
    if (policy != nullptr) {
      rocksdb::BlockBasedTableOptions table;
      std::unique_ptr<rocksdb::FilterBitsBuilder> builder(
          policy->GetBuilderWithContext(rocksdb::FilterBuildingContext(table)));
      ASSERT_NE(builder, nullptr) << bad.text;
      builder->AddKey("key");
      std::unique_ptr<const char[]> buf;
      rocksdb::Status finished;
      EXPECT_TRUE(builder->Finish(&buf, &finished).empty()) << bad.text;
      EXPECT_TRUE(finished.IsCorruption()) << bad.text << ": " << finished.ToString();
      EXPECT_NE(finished.ToString().find(bad.says), std::string::npos)
          << bad.text << " says: " << finished.ToString();
    }
  }
}

TEST(OptionsTest, EveryBadFormIsRefusedAtOpen) {
  // RocksDB's table options swallow a filter policy's parse errors (it is
  // parsed "by name"): the options string is accepted, and DB::Open must
  // then refuse, saying why.
  for (const BadInput& bad : kBadInputs) {
    SCOPED_TRACE(bad.text);
    rocksdb::ConfigOptions config;
    rocksdb::Options options;
    const std::string text = std::string("create_if_missing=true;block_based_table_factory={") +
                             "filter_policy=" + bad.text + "}";
    rocksdb::Status s = rocksdb::GetOptionsFromString(config, rocksdb::Options(), text, &options);
    if (!s.ok()) {  // refused while parsing: nothing to open with
      EXPECT_NE(s.ToString().find(bad.says), std::string::npos) << s.ToString();
      continue;
    }
    EXPECT_FALSE(CheckFilterPolicyInEffect(options).ok());
    test::TempDir dir;
    rocksdb::DB* db = nullptr;
    s = rocksdb::DB::Open(options, dir.path(), &db);
    delete db;
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find(bad.says), std::string::npos) << s.ToString();
  }
}

TEST(OptionsTest, TableOptionsStringRoundTrip) {
  rocksdb::ConfigOptions config;
  rocksdb::BlockBasedTableOptions table;
  ASSERT_TRUE(rocksdb::GetBlockBasedTableOptionsFromString(
                  config, {}, "filter_policy=sstfilter.cuckoo:12;block_size=8192", &table)
                  .ok());
  ASSERT_NE(table.filter_policy, nullptr);
  std::unique_ptr<rocksdb::TableFactory> factory(rocksdb::NewBlockBasedTableFactory(table));
  std::string serialized;
  ASSERT_TRUE(factory->GetOptionString(config, &serialized).ok());
  EXPECT_NE(serialized.find("sstfilter.cuckoo"), std::string::npos) << serialized;
  rocksdb::BlockBasedTableOptions reparsed;
  ASSERT_TRUE(rocksdb::GetBlockBasedTableOptionsFromString(config, {}, serialized, &reparsed).ok())
      << serialized;
  ASSERT_NE(reparsed.filter_policy, nullptr) << serialized;
  std::string mismatch;
  EXPECT_TRUE(reparsed.filter_policy->AreEquivalent(config, table.filter_policy.get(), &mismatch))
      << mismatch;
  EXPECT_EQ(BitsPerKeyOf(*reparsed.filter_policy), 12);
}

TEST(OptionsTest, CompatBuiltinSurvivesTheOptionsFileRoundTrip) {
  rocksdb::ConfigOptions config;
  rocksdb::BlockBasedTableOptions table;
  ASSERT_TRUE(rocksdb::GetBlockBasedTableOptionsFromString(
                  config, {},
                  "filter_policy={id=sstfilter.cuckoo;bits_per_key=12;compat=builtin}", &table)
                  .ok());
  ASSERT_NE(table.filter_policy, nullptr);
  std::unique_ptr<rocksdb::TableFactory> factory(rocksdb::NewBlockBasedTableFactory(table));
  std::string serialized;
  ASSERT_TRUE(factory->GetOptionString(config, &serialized).ok());
  EXPECT_NE(serialized.find("compat=builtin"), std::string::npos) << serialized;
  EXPECT_NE(serialized.find("id=sstfilter.cuckoo;"), std::string::npos) << serialized;
  rocksdb::BlockBasedTableOptions reparsed;
  ASSERT_TRUE(rocksdb::GetBlockBasedTableOptionsFromString(config, {}, serialized, &reparsed).ok())
      << serialized;
  ASSERT_NE(reparsed.filter_policy, nullptr) << serialized;
  EXPECT_STREQ(reparsed.filter_policy->CompatibilityName(), table.filter_policy->CompatibilityName());
  std::string mismatch;
  EXPECT_TRUE(reparsed.filter_policy->AreEquivalent(config, table.filter_policy.get(), &mismatch))
      << mismatch;
  // The default family is not equivalent to it.
  rocksdb::BlockBasedTableOptions plain;
  ASSERT_TRUE(rocksdb::GetBlockBasedTableOptionsFromString(
                  config, {}, "filter_policy={id=sstfilter.cuckoo;bits_per_key=12}", &plain)
                  .ok());
  EXPECT_FALSE(plain.filter_policy->AreEquivalent(config, table.filter_policy.get(), &mismatch));
}

TEST(OptionsTest, AllocationSurvivesTheOptionsFileRoundTrip) {
  rocksdb::ConfigOptions config;
  for (const char* id : {"sstfilter.cuckoo", "sstfilter.bloom", "sstfilter.fuse", "sstfilter.burr"}) {
    rocksdb::BlockBasedTableOptions table;
    const std::string text = std::string("filter_policy={id=") + id +
                             ";bits_per_key=10;allocation=monkey}";
    ASSERT_TRUE(rocksdb::GetBlockBasedTableOptionsFromString(config, {}, text, &table).ok())
        << text;
    ASSERT_NE(table.filter_policy, nullptr);
    std::unique_ptr<rocksdb::TableFactory> factory(rocksdb::NewBlockBasedTableFactory(table));
    std::string serialized;
    ASSERT_TRUE(factory->GetOptionString(config, &serialized).ok());
    EXPECT_NE(serialized.find("allocation=monkey"), std::string::npos) << serialized;
    rocksdb::BlockBasedTableOptions reparsed;
    ASSERT_TRUE(
        rocksdb::GetBlockBasedTableOptionsFromString(config, {}, serialized, &reparsed).ok())
        << serialized;
    ASSERT_NE(reparsed.filter_policy, nullptr) << serialized;
    std::string value;
    ASSERT_TRUE(reparsed.filter_policy->GetOption(config, "allocation", &value).ok());
    EXPECT_EQ(value, "monkey");
    std::string mismatch;
    EXPECT_TRUE(
        reparsed.filter_policy->AreEquivalent(config, table.filter_policy.get(), &mismatch))
        << mismatch;
    // The default is uniform, and not equivalent to monkey.
    rocksdb::Status s;
    const auto uniform = FromString(std::string(id) + ":10", &s);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(uniform->GetOption(config, "allocation", &value).ok());
    EXPECT_EQ(value, "uniform");
    EXPECT_FALSE(uniform->AreEquivalent(config, table.filter_policy.get(), &mismatch));
  }
}

TEST(OptionsTest, UnknownAllocationIsInvalidArgument) {
  for (const char* bad : {"{id=sstfilter.cuckoo;bits_per_key=10;allocation=monky}",
                          "{id=sstfilter.bloom;allocation=}",
                          "{id=sstfilter.cuckoo;allocation=Monkey}"}) {
    rocksdb::Status s;
    FromString(bad, &s);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad << ": " << s.ToString();
    EXPECT_NE(s.ToString().find("uniform, monkey"), std::string::npos) << s.ToString();
  }
}

TEST(OptionsTest, UnregisteredIdIsSilentlyDroppedByRocksDB) {
  // Documents the trap the README warns about: not our id, not our
  // catch-all, so RocksDB returns OK and a null policy.
  rocksdb::Status s;
  const auto policy = FromString("sst_filter.cuckoo:12", &s);
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(policy, nullptr);
}

TEST(CheckTest, ReportsWhatFilterIsInEffect) {
  rocksdb::Options options;
  rocksdb::BlockBasedTableOptions table;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::Status s = CheckFilterPolicyInEffect(options);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("null"), std::string::npos) << s.ToString();

  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  s = CheckFilterPolicyInEffect(options);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("bloomfilter"), std::string::npos) << s.ToString();

  table.filter_policy = NewCuckooFilterPolicy(12);
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  EXPECT_TRUE(CheckFilterPolicyInEffect(options).ok());

  // The trap itself: an options string naming an unregistered id.
  rocksdb::ConfigOptions config;
  rocksdb::ColumnFamilyOptions cf;
  ASSERT_TRUE(rocksdb::GetColumnFamilyOptionsFromString(
                  config, {}, "block_based_table_factory={filter_policy=nosuch.filter:10}", &cf)
                  .ok());
  EXPECT_TRUE(CheckFilterPolicyInEffect(cf).IsInvalidArgument());
  options.table_factory.reset(rocksdb::NewPlainTableFactory());
  EXPECT_TRUE(CheckFilterPolicyInEffect(options).IsInvalidArgument());
}

}  // namespace
}  // namespace sstfilter
