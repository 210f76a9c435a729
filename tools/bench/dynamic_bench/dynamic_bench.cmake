# dynamic_bench: the dynamic cuckoo filter against the static cuckoo filter
# at equal FPR and a classic power-of-two cuckoo filter
# (tools/bench/dynamic_bench/). Needs gflags (found in tools/CMakeLists.txt).
if(SSTFILTER_HAVE_GFLAGS)
  add_executable(dynamic_bench ${CMAKE_CURRENT_LIST_DIR}/bench_util.cc
                               ${CMAKE_CURRENT_LIST_DIR}/main.cc)
  target_link_libraries(dynamic_bench PRIVATE sstfilter_core sstfilter_gflags)
  target_compile_options(dynamic_bench PRIVATE ${SSTFILTER_WARNINGS})
endif()
