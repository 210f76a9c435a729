# fuse_sizing: first-peeling success of 4-wise binary fuse filters against
# slots per key (tools/research/fuse_sizing/fuse_sizing.cc), for docs/design/fuse.md.
if(SSTFILTER_HAVE_GFLAGS)
  add_executable(fuse_sizing ${CMAKE_CURRENT_LIST_DIR}/fuse_sizing.cc)
  target_link_libraries(fuse_sizing PRIVATE sstfilter_core sstfilter_gflags)
  target_compile_options(fuse_sizing PRIVATE ${SSTFILTER_WARNINGS})
endif()
