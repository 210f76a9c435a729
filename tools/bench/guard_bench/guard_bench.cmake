# guard_bench: the key guard (GuardedDB) against the same RocksDB unguarded
# (tools/bench/guard_bench/guard_bench.cc).
if(SSTFILTER_HAVE_GFLAGS)
  add_executable(guard_bench ${CMAKE_CURRENT_LIST_DIR}/guard_bench.cc
                             ${CMAKE_CURRENT_LIST_DIR}/bench_dbs.cc
                             ${CMAKE_CURRENT_LIST_DIR}/workload.cc
                             ${CMAKE_CURRENT_LIST_DIR}/growth.cc)
  target_link_libraries(guard_bench PRIVATE sstfilter::sstfilter sstfilter_gflags)
  # plugin/ for "rocksdb_adapter/db_open.h" (DB::Open across RocksDB versions).
  target_include_directories(guard_bench PRIVATE ${PROJECT_SOURCE_DIR}/plugin)
  target_compile_options(guard_bench PRIVATE ${SSTFILTER_WARNINGS})
endif()
