// CheckFilterPolicyInEffect: the check users (and our benchmark runner)
// call after loading options, because RocksDB reports success while
// dropping a filter policy nobody registered.

#include <rocksdb/table.h>
#include <sstfilter/sstfilter.h>

namespace sstfilter {

rocksdb::Status CheckFilterPolicyInEffect(const rocksdb::ColumnFamilyOptions& options) {
  if (options.table_factory == nullptr) {
    return rocksdb::Status::InvalidArgument("no table factory configured");
  }
  const auto* table =
      options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  if (table == nullptr) {
    return rocksdb::Status::InvalidArgument(
        std::string("table factory '") + options.table_factory->Name() +
        "' is not block-based: no sstfilter filters");
  }
  const rocksdb::FilterPolicy* policy = table->filter_policy.get();
  if (policy == nullptr) {
    return rocksdb::Status::InvalidArgument(
        "filter_policy is null: SSTs get no filter. RocksDB silently drops "
        "a filter_policy id that no loaded library registered, or that it "
        "could not parse: is libsstfilter loaded, and is the id spelled "
        "right?");
  }
  if (!IsSstFilterPolicy(policy)) {
    return rocksdb::Status::InvalidArgument(
        std::string("filter_policy is '") + policy->Name() + "', not sstfilter");
  }
  // A bad id or bad options: the policy refuses (SstFilterPolicy::Refused).
  return policy->ValidateOptions(rocksdb::DBOptions(), options);
}

}  // namespace sstfilter
