# filter_bench: sstfilter's filters against RocksDB's built-ins through
# RocksDB's FilterBitsBuilder/FilterBitsReader (tools/filter_bench/).
# Needs gflags (Debian: libgflags-dev); skipped with a message without it.

find_package(gflags CONFIG QUIET)
if(TARGET gflags)
  set(_filter_bench_gflags gflags)
else()
  find_path(GFLAGS_INCLUDE_DIR gflags/gflags.h)
  find_library(GFLAGS_LIBRARY gflags)
  if(GFLAGS_INCLUDE_DIR AND GFLAGS_LIBRARY)
    add_library(filter_bench_gflags INTERFACE)
    target_include_directories(filter_bench_gflags INTERFACE ${GFLAGS_INCLUDE_DIR})
    target_link_libraries(filter_bench_gflags INTERFACE ${GFLAGS_LIBRARY})
    set(_filter_bench_gflags filter_bench_gflags)
  endif()
endif()

if(NOT _filter_bench_gflags)
  message(STATUS "gflags not found: not building filter_bench (Debian: apt-get install libgflags-dev)")
  return()
endif()

add_executable(filter_bench
  ${CMAKE_CURRENT_LIST_DIR}/filter_bench/bench_runner.cc
  ${CMAKE_CURRENT_LIST_DIR}/filter_bench/checks.cc
  ${CMAKE_CURRENT_LIST_DIR}/filter_bench/filter_set.cc
  ${CMAKE_CURRENT_LIST_DIR}/filter_bench/filter_under_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/filter_bench/fpr_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/filter_bench/key_gen.cc
  ${CMAKE_CURRENT_LIST_DIR}/filter_bench/main.cc
  ${CMAKE_CURRENT_LIST_DIR}/filter_bench/progress.cc
  ${CMAKE_CURRENT_LIST_DIR}/filter_bench/query_timer.cc
  ${CMAKE_CURRENT_LIST_DIR}/filter_bench/report.cc
  ${CMAKE_CURRENT_LIST_DIR}/filter_bench/workload.cc)
# plugin/ for "rocksdb/rocksdb_internal.h", the shim declaring RocksDB's
# internal FilterBitsBuilder/FilterBitsReader (same vtable as 7.8.3's).
target_include_directories(filter_bench PRIVATE ${CMAKE_SOURCE_DIR}/plugin)
target_link_libraries(filter_bench PRIVATE sstfilter::sstfilter ${_filter_bench_gflags})
target_compile_options(filter_bench PRIVATE ${SSTFILTER_WARNINGS})
