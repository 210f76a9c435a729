# leveldb_bench: LevelDB's Bloom policy, no filter and sstfilter's LevelDB
# policies on one workload (tools/bench/leveldb_bench/leveldb_bench.cc). Built when the LevelDB
# adapter is (target sstfilter_leveldb) and gflags is found (Debian:
# libgflags-dev). Included by tools/CMakeLists.txt.

if(TARGET sstfilter_leveldb)
  if(SSTFILTER_HAVE_GFLAGS)
    add_executable(leveldb_bench ${CMAKE_CURRENT_LIST_DIR}/leveldb_bench.cc
                                 ${CMAKE_CURRENT_LIST_DIR}/leveldb_bench_small.cc)
    # The counting Env (tests/, shared with the LevelDB tests) and the
    # trailer parser (plugin/format).
    target_include_directories(leveldb_bench PRIVATE ${PROJECT_SOURCE_DIR}/tests
                                                     ${PROJECT_SOURCE_DIR}/plugin)
    target_link_libraries(leveldb_bench PRIVATE sstfilter::leveldb sstfilter_gflags)
    target_compile_options(leveldb_bench PRIVATE ${SSTFILTER_WARNINGS})
  endif()
endif()
