# The library's sources, relative to the project root: one list for our own
# build (CMakeLists.txt) and for RocksDB's in-tree plugin build
# (cmake/rocksdb_plugin.cmake). Layers, lowest first; a file includes only
# its own layer and those listed before it, never a sibling of the same
# rank (tools/scripts/check_layers.py; the LevelDB adapter, built apart in
# plugin/leveldb_adapter/, ranks with rocksdb):
#   format      hash, coding, the trailer
#   filters     Bloom, cuckoo, fuse, bumped ribbon, the small form, the planner
#   range       the range filter: key map, Elias-Fano  (same rank as filters)
#   dynamic     the dynamic cuckoo filter          (same rank as allocation)
#   allocation  per-level budgets and the level model
#   rocksdb     the RocksDB policy, registration, the built-in family
#   guard       the key guard (GuardedDB)          (same rank as migrate)
#   migrate     rewriting a DB's filters

# Engine-free: filters on 64-bit hashes, no engine header.
set(SSTFILTER_CORE_SOURCES
  plugin/format/hash.cc
  plugin/format/trailer.cc
  plugin/filters/bloom.cc
  plugin/filters/burr_banding.cc
  plugin/filters/burr_builder.cc
  plugin/filters/burr_format.cc
  plugin/filters/burr_shape.cc
  plugin/filters/cuckoo_builder.cc
  plugin/filters/cuckoo_kind.cc
  plugin/filters/cuckoo_table.cc
  plugin/filters/filter_builder.cc
  plugin/filters/filter_spec.cc
  plugin/filters/fuse_builder.cc
  plugin/filters/fuse_kind.cc
  plugin/filters/fuse_peeler.cc
  plugin/filters/planner.cc
  plugin/filters/reader_dispatch.cc
  plugin/filters/small_filter.cc
  plugin/filters/small_filter_builder.cc
  plugin/range/elias_fano.cc
  plugin/range/key_map.cc
  plugin/range/range_filter.cc
  plugin/dynamic/copy_counts.cc
  plugin/dynamic/dynamic_cuckoo.cc
  plugin/dynamic/dynamic_cuckoo_format.cc
  plugin/dynamic/growing_filter.cc
  plugin/dynamic/growing_format.cc
  plugin/dynamic/growing_insert.cc
  plugin/dynamic/growing_layout.cc
  plugin/dynamic/growing_resize.cc
  plugin/dynamic/growing_table.cc
  plugin/dynamic/legacy_format.cc
  plugin/dynamic/legacy_plan.cc
  plugin/dynamic/legacy_reader.cc
  plugin/dynamic/table_memory.cc
  plugin/allocation/level_allocation.cc
  plugin/allocation/level_model.cc
  plugin/allocation/probe_share.cc
  plugin/allocation/tree_allocation.cc)

# On RocksDB: the policy, the key guard, migration.
set(SSTFILTER_ROCKSDB_SOURCES
  plugin/rocksdb_adapter/bits_adapter.cc
  plugin/rocksdb_adapter/builtin_family.cc
  plugin/rocksdb_adapter/check.cc
  plugin/rocksdb_adapter/construction_charge.cc
  plugin/rocksdb_adapter/level_listener.cc
  plugin/rocksdb_adapter/memory_rounding.cc
  plugin/rocksdb_adapter/policy.cc
  plugin/rocksdb_adapter/range_collector.cc
  plugin/rocksdb_adapter/registration.cc
  plugin/guard/guard_family.cc
  plugin/guard/guard_represize.cc
  plugin/guard/guard_file.cc
  plugin/guard/guard_impl.cc
  plugin/guard/guard_restart.cc
  plugin/guard/guarded_db.cc
  plugin/guard/guarded_db_read.cc
  plugin/guard/guard_hook.cc
  plugin/guard/guarded_db_ingest.cc
  plugin/migrate/migrate.cc)
