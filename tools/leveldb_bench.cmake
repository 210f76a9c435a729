# leveldb_bench: LevelDB's Bloom policy, no filter and sstfilter's LevelDB
# policies on one workload (tools/leveldb_bench.cc). Built when the LevelDB
# adapter is (target sstfilter_leveldb) and gflags is found (Debian:
# libgflags-dev). Included by tools/CMakeLists.txt.

if(TARGET sstfilter_leveldb)
  if(NOT TARGET gflags)
    find_package(gflags CONFIG QUIET)
  endif()
  set(_leveldb_bench_gflags "")
  if(TARGET gflags)
    set(_leveldb_bench_gflags gflags)
  else()
    find_path(LEVELDB_BENCH_GFLAGS_INCLUDE_DIR gflags/gflags.h)
    find_library(LEVELDB_BENCH_GFLAGS_LIBRARY gflags)
    if(LEVELDB_BENCH_GFLAGS_INCLUDE_DIR AND LEVELDB_BENCH_GFLAGS_LIBRARY)
      add_library(leveldb_bench_gflags INTERFACE)
      target_include_directories(leveldb_bench_gflags INTERFACE ${LEVELDB_BENCH_GFLAGS_INCLUDE_DIR})
      target_link_libraries(leveldb_bench_gflags INTERFACE ${LEVELDB_BENCH_GFLAGS_LIBRARY})
      set(_leveldb_bench_gflags leveldb_bench_gflags)
    endif()
  endif()

  if(_leveldb_bench_gflags)
    add_executable(leveldb_bench ${CMAKE_CURRENT_LIST_DIR}/leveldb_bench.cc
                                 ${CMAKE_CURRENT_LIST_DIR}/leveldb_bench_small.cc)
    # The counting Env (plugin/leveldb) and the trailer parser (plugin/core).
    target_include_directories(leveldb_bench PRIVATE ${PROJECT_SOURCE_DIR}/plugin/leveldb
                                                     ${PROJECT_SOURCE_DIR}/plugin/core)
    target_link_libraries(leveldb_bench PRIVATE sstfilter::leveldb ${_leveldb_bench_gflags})
    target_compile_options(leveldb_bench PRIVATE ${SSTFILTER_WARNINGS})
  else()
    message(STATUS "gflags not found: not building leveldb_bench (Debian: apt-get install libgflags-dev)")
  endif()
endif()
