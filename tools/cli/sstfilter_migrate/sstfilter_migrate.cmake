# sstfilter_migrate: rewrites the SSTs whose filter a DB's configured policy
# cannot read (tools/cli/sstfilter_migrate/sstfilter_migrate.cc).
add_executable(sstfilter_migrate ${CMAKE_CURRENT_LIST_DIR}/sstfilter_migrate.cc)
target_link_libraries(sstfilter_migrate PRIVATE sstfilter::sstfilter)
# plugin/ for "rocksdb_adapter/db_open.h" (DB::Open across RocksDB versions).
target_include_directories(sstfilter_migrate PRIVATE ${PROJECT_SOURCE_DIR}/plugin)
target_compile_options(sstfilter_migrate PRIVATE ${SSTFILTER_WARNINGS})
