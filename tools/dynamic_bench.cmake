# dynamic_bench: the dynamic cuckoo filter against the static cuckoo filter
# at equal FPR and a classic power-of-two cuckoo filter
# (tools/dynamic_bench/). Needs gflags (found in tools/CMakeLists.txt).
if(SSTFILTER_HAVE_GFLAGS)
  add_executable(dynamic_bench ${CMAKE_CURRENT_LIST_DIR}/dynamic_bench/main.cc
                               $<TARGET_OBJECTS:sstfilter_core>)
  target_include_directories(dynamic_bench PRIVATE ${PROJECT_SOURCE_DIR}/plugin/core
                                                   ${PROJECT_SOURCE_DIR}/plugin/include)
  target_link_libraries(dynamic_bench PRIVATE sstfilter_gflags)
  target_compile_options(dynamic_bench PRIVATE ${SSTFILTER_WARNINGS})
endif()
