#include "rocksdb_adapter/builtin_family.h"

#include <cstring>

#include "rocksdb_adapter/bits_adapter.h"

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

rocksdb::FilterBitsReader* NewBuiltinFamilyReader(const rocksdb::Slice& contents) {
  if (HasBuiltinGuard(contents)) return NewBitsReader(WithoutBuiltinGuard(contents));
  return BuiltinPolicy()->GetFilterBitsReader(contents);
}

}  // namespace sstfilter
