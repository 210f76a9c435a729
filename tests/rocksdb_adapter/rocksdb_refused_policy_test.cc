// A policy refused for a bad id or bad options, on the paths that build
// tables without validating options (DB::Open refuses it first:
// rocksdb_options_test.cc): SstFileWriter fails at Finish with the
// refusal's words, and RepairDB keeps every key in tables without a filter,
// saying why in the DB's LOG. Never a file without a filter, silently.

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>
#include <sstfilter/sstfilter.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "bad_policy_inputs.h"
#include "rocksdb_adapter/db_open.h"
#include "rocksdb_test_util.h"

namespace sstfilter {
namespace {

using test::kBadInputs;

// Options whose table options come from `filter_policy=<text>`, as an
// options string or OPTIONS file gives them; false if RocksDB refused the
// string itself (then nothing can be built with it).
bool OptionsNaming(const std::string& text, rocksdb::Options* options) {
  const std::string s = "create_if_missing=true;block_based_table_factory={filter_policy=" +
                        text + "}";
  return rocksdb::GetOptionsFromString(rocksdb::ConfigOptions(), rocksdb::Options(), s, options)
      .ok();
}

TEST(RefusedPolicyTest, SstFileWriterFailsNamingTheBadId) {
  size_t written = 0;
  for (const test::BadInput& bad : kBadInputs) {
    SCOPED_TRACE(bad.text);
    rocksdb::Options options;
    if (!OptionsNaming(bad.text, &options)) continue;
    ++written;
    ASSERT_FALSE(CheckFilterPolicyInEffect(options).ok());
    test::TempDir dir;
    const std::string file = dir.path() + "/out.sst";
    rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
    ASSERT_TRUE(writer.Open(file).ok());
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(writer.Put(test::KeyAt(i), "v").ok());
    const rocksdb::Status s = writer.Finish();
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.ToString().find("is not usable"), std::string::npos) << s.ToString();
    EXPECT_NE(s.ToString().find(bad.says), std::string::npos) << s.ToString();
    // Nothing to ingest: no file, or none RocksDB will take.
    if (std::filesystem::exists(file)) {
      rocksdb::Options plain;
      plain.create_if_missing = true;
      std::unique_ptr<rocksdb::DB> db;
      ASSERT_TRUE(OpenDB(plain, dir.path() + "/db", &db).ok());
      EXPECT_FALSE(db->IngestExternalFile({file}, rocksdb::IngestExternalFileOptions()).ok());
    }
  }
  // Options strings take most bad forms: RocksDB parses filter_policy by
  // name and swallows the error.
  EXPECT_GE(written, std::size(kBadInputs) - 2);
}

TEST(RefusedPolicyTest, AGoodIdStillWritesItsFilter) {
  rocksdb::Options options;
  ASSERT_TRUE(OptionsNaming("sstfilter.cuckoo:12", &options));
  ASSERT_TRUE(CheckFilterPolicyInEffect(options).ok());  // not RocksDB's silent null
  test::TempDir dir;
  const std::string file = dir.path() + "/out.sst";
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
  ASSERT_TRUE(writer.Open(file).ok());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(writer.Put(test::KeyAt(i), "v").ok());
  ASSERT_TRUE(writer.Finish().ok());
  rocksdb::SstFileReader reader(options);
  ASSERT_TRUE(reader.Open(file).ok());
  const auto props = reader.GetTableProperties();
  EXPECT_EQ(props->filter_policy_name, "sstfilter.cuckoo");
  EXPECT_GT(props->filter_size, 0u);
}

TEST(RefusedPolicyTest, RepairDBKeepsEveryKeyAndSaysWhy) {
  test::TempDir dir;
  const int n = 2000;
  {
    // Logged writes, never flushed: RepairDB turns the log into a table.
    rocksdb::Options good;
    ASSERT_TRUE(OptionsNaming("sstfilter.cuckoo:12", &good));
    std::unique_ptr<rocksdb::DB> db;
    ASSERT_TRUE(OpenDB(good, dir.path(), &db).ok());
    for (int i = 0; i < n; ++i) ASSERT_TRUE(db->Put({}, test::KeyAt(i), "v").ok());
  }
  rocksdb::Options bad;
  ASSERT_TRUE(OptionsNaming("sstfilter.cukoo:12", &bad));
  ASSERT_TRUE(rocksdb::RepairDB(dir.path(), bad).ok());
  std::ifstream log(dir.path() + "/LOG");
  const std::string text((std::istreambuf_iterator<char>(log)), {});
  EXPECT_NE(text.find("sstfilter: writing a table without a filter: filter_policy "
                      "sstfilter.cukoo:12 is not usable: unknown sstfilter policy"),
            std::string::npos);
  rocksdb::Options good;
  ASSERT_TRUE(OptionsNaming("sstfilter.cuckoo:12", &good));
  std::unique_ptr<rocksdb::DB> db;
  ASSERT_TRUE(OpenDB(good, dir.path(), &db).ok());
  for (int i = 0; i < n; ++i) {
    std::string v;
    EXPECT_TRUE(db->Get({}, test::KeyAt(i), &v).ok()) << i;
  }
}

}  // namespace
}  // namespace sstfilter
