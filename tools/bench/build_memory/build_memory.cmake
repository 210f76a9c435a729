# build_memory: peak heap bytes per key of one filter build, sstfilter's
# filters and RocksDB's built-ins alike (tools/bench/build_memory/), for
# docs/results/build_memory.md. Reuses filter_bench's drivers.
if(NOT SSTFILTER_HAVE_GFLAGS)
  return()
endif()
add_executable(build_memory
  ${CMAKE_CURRENT_LIST_DIR}/build_memory.cc
  ${CMAKE_CURRENT_LIST_DIR}/charge_probe.cc
  ${PROJECT_SOURCE_DIR}/tests/util/heap_counter.cc
  ${CMAKE_CURRENT_LIST_DIR}/../filter_bench/filter_under_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/../filter_bench/fpr_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/../filter_bench/key_gen.cc)
target_include_directories(build_memory PRIVATE ${PROJECT_SOURCE_DIR}/plugin ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(build_memory PRIVATE sstfilter::sstfilter)
target_compile_options(build_memory PRIVATE ${SSTFILTER_WARNINGS})
