# large_filter: one filter over tens of millions of keys; build time and
# peak memory per key (tools/research/large_filter/large_filter.cc).
if(SSTFILTER_HAVE_GFLAGS)
  add_executable(large_filter ${CMAKE_CURRENT_LIST_DIR}/large_filter.cc)
  target_link_libraries(large_filter PRIVATE sstfilter_core sstfilter_gflags)
  target_compile_options(large_filter PRIVATE ${SSTFILTER_WARNINGS})
endif()
