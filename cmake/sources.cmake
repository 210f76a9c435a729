# The library's sources, relative to the project root: one list for our own
# build (CMakeLists.txt) and for RocksDB's in-tree plugin build
# (cmake/rocksdb_plugin.cmake).

# Core: filters on 64-bit hashes, no engine headers.
set(SSTFILTER_CORE_SOURCES
  plugin/core/bloom.cc
  plugin/core/cuckoo_builder.cc
  plugin/core/cuckoo_reader.cc
  plugin/core/cuckoo_table.cc
  plugin/core/copy_counts.cc
  plugin/core/dynamic_cuckoo.cc
  plugin/core/dynamic_cuckoo_plan.cc
  plugin/core/dynamic_cuckoo_format.cc
  plugin/core/dynamic_cuckoo_table.cc
  plugin/core/filter.cc
  plugin/core/filter_spec.cc
  plugin/core/fuse_builder.cc
  plugin/core/fuse_peeler.cc
  plugin/core/fuse_reader.cc
  plugin/core/hash.cc
  plugin/core/small_filter.cc
  plugin/core/level_allocation.cc
  plugin/core/trailer.cc)

# RocksDB adapter: policies, options, registration, the policy check.
set(SSTFILTER_ROCKSDB_SOURCES
  plugin/rocksdb/bits_adapter.cc
  plugin/rocksdb/builtin_family.cc
  plugin/rocksdb/check.cc
  plugin/rocksdb/guard_family.cc
  plugin/rocksdb/guard_file.cc
  plugin/rocksdb/guard_impl.cc
  plugin/rocksdb/guard_restart.cc
  plugin/rocksdb/guarded_db.cc
  plugin/rocksdb/guarded_db_write.cc
  plugin/rocksdb/level_model.cc
  plugin/rocksdb/migrate.cc
  plugin/rocksdb/policy.cc
  plugin/rocksdb/registration.cc)
