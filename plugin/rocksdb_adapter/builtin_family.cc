#include "rocksdb_adapter/builtin_family.h"

#include <cstring>

namespace sstfilter {
namespace {

constexpr char kGuard[kBuiltinGuardSize] = {0, 'S', 'S', 'T', 'F'};

}  // namespace

void AppendBuiltinGuard(std::string* filter) { filter->append(kGuard, kBuiltinGuardSize); }

bool HasBuiltinGuard(const rocksdb::Slice& contents) {
  return contents.size() >= kBuiltinGuardSize &&
         std::memcmp(contents.data() + contents.size() - kBuiltinGuardSize, kGuard,
                     kBuiltinGuardSize) == 0;
}

rocksdb::Slice WithoutBuiltinGuard(const rocksdb::Slice& contents) {
  return rocksdb::Slice(contents.data(), contents.size() - kBuiltinGuardSize);
}

const std::shared_ptr<const rocksdb::FilterPolicy>& BuiltinPolicy() {
  // Its bits/key only matters for building, which it never does here.
  static const auto* policy =
      new std::shared_ptr<const rocksdb::FilterPolicy>(rocksdb::NewBloomFilterPolicy(10));
  return *policy;
}

}  // namespace sstfilter
