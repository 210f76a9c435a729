// sstfilter_check: does an OPTIONS file (or a DB's latest one) configure an
// sstfilter filter policy that actually loads? Guards against RocksDB's
// silent drop of unregistered policy ids.
//
//   sstfilter_check <OPTIONS file | DB directory>...
//
// For each column family prints "ok <cf>: <policy id>" or "NOT IN EFFECT
// <cf>: <reason>". Exit status 0 only if every column family of every
// argument uses an sstfilter policy. Options are loaded as RocksDB's own
// tools load them (unsupported ids ignored), so what this reports is what
// a DB opened from them would get.

#include <rocksdb/convenience.h>
#include <rocksdb/env.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/options_util.h>
#include <sstfilter/sstfilter.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

// Loads `path` as a DB directory if it is one, else as an OPTIONS file.
rocksdb::Status Load(const std::string& path, std::vector<rocksdb::ColumnFamilyDescriptor>* cfs) {
  rocksdb::ConfigOptions config;
  config.env = rocksdb::Env::Default();
  rocksdb::DBOptions db_options;
  if (config.env->FileExists(path + "/CURRENT").ok()) {
    return rocksdb::LoadLatestOptions(config, path, &db_options, cfs);
  }
  return rocksdb::LoadOptionsFromFile(config, path, &db_options, cfs);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <OPTIONS file | DB directory>...\n", argv[0]);
    return 2;
  }
  int failures = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    const rocksdb::Status s = Load(argv[i], &cfs);
    if (!s.ok()) {
      std::printf("NOT IN EFFECT %s: cannot load options: %s\n", argv[i], s.ToString().c_str());
      ++failures;
      continue;
    }
    for (const auto& cf : cfs) {
      const rocksdb::Status check = sstfilter::CheckFilterPolicyInEffect(cf.options);
      if (check.ok()) {
        const auto* table = cf.options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
        std::printf("ok %s [%s]: %s\n", argv[i], cf.name.c_str(),
                    table->filter_policy->ToString(rocksdb::ConfigOptions()).c_str());
      } else {
        std::printf("NOT IN EFFECT %s [%s]: %s\n", argv[i], cf.name.c_str(),
                    check.ToString().c_str());
        ++failures;
      }
    }
  }
  return failures == 0 ? 0 : 1;
}
