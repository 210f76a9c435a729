# LevelDB adapter tests, included by tests/CMakeLists.txt when the target
# sstfilter_leveldb exists. Test names start with the executable's name, so
# `ctest -R leveldb` selects exactly these.
function(sstfilter_leveldb_test name)
  add_executable(${name} ${name}.cc)
  # The tests also check internals: the budget formula, trailers. (The
  # counting Env, tests/read_counting_env.h, sits beside them.)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/plugin/leveldb
                                             ${PROJECT_SOURCE_DIR}/plugin/core)
  target_link_libraries(${name} PRIVATE sstfilter::leveldb GTest::gtest_main)
  target_compile_options(${name} PRIVATE ${SSTFILTER_WARNINGS})
  gtest_discover_tests(${name} TEST_PREFIX "${name}." DISCOVERY_TIMEOUT 60
                       PROPERTIES TIMEOUT 900)
endfunction()

sstfilter_leveldb_test(leveldb_policy_test)
sstfilter_leveldb_test(leveldb_small_filter_test)
sstfilter_leveldb_test(leveldb_db_test)
sstfilter_leveldb_test(leveldb_compat_test)
# A committed LevelDB database written by format version 1 (tests/data).
target_compile_definitions(leveldb_compat_test PRIVATE
                           SSTFILTER_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")
