# large_filter: one filter over tens of millions of keys; build time and
# peak memory per key (tools/large_filter/large_filter.cc).
find_path(LARGE_FILTER_GFLAGS_INCLUDE gflags/gflags.h)
find_library(LARGE_FILTER_GFLAGS_LIB gflags)
if(LARGE_FILTER_GFLAGS_INCLUDE AND LARGE_FILTER_GFLAGS_LIB)
  add_executable(large_filter ${CMAKE_CURRENT_LIST_DIR}/large_filter/large_filter.cc
                              $<TARGET_OBJECTS:sstfilter_core>)
  target_include_directories(large_filter PRIVATE ${PROJECT_SOURCE_DIR}/plugin/core
                                                  ${LARGE_FILTER_GFLAGS_INCLUDE})
  target_link_libraries(large_filter PRIVATE ${LARGE_FILTER_GFLAGS_LIB})
  target_compile_options(large_filter PRIVATE ${SSTFILTER_WARNINGS})
endif()
