// The bad forms of an sstfilter policy id, and what each must say: shared
// by the options tests (refused at DB::Open) and the refused-policy tests
// (refused by every table build that never validates options).

#pragma once

#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>

#include <memory>
#include <string>

namespace sstfilter {
namespace test {

inline std::shared_ptr<const rocksdb::FilterPolicy> FromString(const std::string& value,
                                                                rocksdb::Status* status) {
  rocksdb::ConfigOptions config;  // defaults, as when loading OPTIONS files
  std::shared_ptr<const rocksdb::FilterPolicy> policy;
  *status = rocksdb::FilterPolicy::CreateFromString(config, value, &policy);
  return policy;
}

// What each bad form must say: the value and the accepted range, or the
// known ids, or the unknown option's name.
struct BadInput {
  const char* text;
  const char* says;
};

inline const BadInput kBadInputs[] = {
    {"sstfilter.cuckoo:0", "sstfilter.cuckoo: bits_per_key 0 is out of range; it must be a number from 4 to 100"},
    {"sstfilter.cuckoo:-3", "bits_per_key -3 is out of range; it must be a number from 4 to 100"},
    {"sstfilter.cuckoo:nan", "bits_per_key nan is out of range; it must be a number from 4 to 100"},
    {"sstfilter.cuckoo:inf", "bits_per_key inf is out of range; it must be a number from 4 to 100"},
    {"sstfilter.cuckoo:101", "bits_per_key 101 is out of range; it must be a number from 4 to 100"},
    {"sstfilter.cuckoo:abc", "bits_per_key 'abc' is not a number; it must be a number from 4 to 100"},
    {"sstfilter.cuckoo:12x", "bits_per_key '12x' is not a number; it must be a number from 4 to 100"},
    {"sstfilter.bloom:0.5", "sstfilter.bloom: bits_per_key 0.5 is out of range; it must be a number from 1 to 100"},
    {"sstfilter.cukoo:12", "unknown sstfilter policy 'sstfilter.cukoo:12'; known: sstfilter.bloom, "},
    {"sstfilter.", "unknown sstfilter policy 'sstfilter.'; known: sstfilter.bloom, "},
    {"{id=sstfilter.cuckoo;bits_per_key=abc}", "bits_per_key 'abc' is not a number; it must be a number from 4 to 100"},
    {"{id=sstfilter.cuckoo;bits_per_key=nan}", "bits_per_key nan is out of range; it must be a number from 4 to 100"},
    {"{id=sstfilter.bloom;bits_per_key=-1}", "sstfilter.bloom: bits_per_key -1 is out of range; it must be a number from 1 to 100"},
    {"{id=sstfilter.cuckoo;bits_per_keys=12}",
     "sstfilter.cuckoo: unknown option 'bits_per_keys'; known: bits_per_key, compat, allocation"},
    {"{id=sstfilter.burr;allocation=monkee}", "allocation 'monkee' is not one of: uniform, monkey"},
    {"{id=sstfilter.burr;compat=rocksdb}", "compat 'rocksdb' is not one of: sstfilter, builtin"},
};

// What `text` gives: CreateFromString's error, or, where it hands back a
// policy that refuses (a bad id, or the braced form's bad options), that
// policy's refusal.
inline rocksdb::Status ErrorOf(const std::string& text,
                               std::shared_ptr<const rocksdb::FilterPolicy>* policy) {
  rocksdb::Status s;
  *policy = FromString(text, &s);
  if (s.ok() && *policy != nullptr) {
    s = (*policy)->ValidateOptions(rocksdb::DBOptions(), rocksdb::ColumnFamilyOptions());
  }
  return s;
}

}  // namespace test
}  // namespace sstfilter
