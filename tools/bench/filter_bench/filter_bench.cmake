# filter_bench: sstfilter's filters against RocksDB's built-ins through
# RocksDB's FilterBitsBuilder/FilterBitsReader (tools/bench/filter_bench/).
# Needs gflags (found in tools/CMakeLists.txt).

if(NOT SSTFILTER_HAVE_GFLAGS)
  return()
endif()

add_executable(filter_bench
  ${CMAKE_CURRENT_LIST_DIR}/bench_runner.cc
  ${CMAKE_CURRENT_LIST_DIR}/checks.cc
  ${CMAKE_CURRENT_LIST_DIR}/filter_set.cc
  ${CMAKE_CURRENT_LIST_DIR}/filter_under_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/fpr_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/key_gen.cc
  ${CMAKE_CURRENT_LIST_DIR}/main.cc
  ${CMAKE_CURRENT_LIST_DIR}/progress.cc
  ${CMAKE_CURRENT_LIST_DIR}/query_timer.cc
  ${CMAKE_CURRENT_LIST_DIR}/report.cc
  ${CMAKE_CURRENT_LIST_DIR}/workload.cc)
# plugin/ for "rocksdb_adapter/rocksdb_internal.h", the shim declaring RocksDB's
# internal FilterBitsBuilder/FilterBitsReader (same vtable as 7.8.3's).
target_include_directories(filter_bench PRIVATE ${PROJECT_SOURCE_DIR}/plugin)
target_link_libraries(filter_bench PRIVATE sstfilter::sstfilter sstfilter_gflags)
target_compile_options(filter_bench PRIVATE ${SSTFILTER_WARNINGS})
