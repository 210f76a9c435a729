# range_bench: short scans on a multi-level DB with direct reads, with and
# without the range filter and against RocksDB's prefix Bloom filter
# (tools/bench/range_bench/), for docs/results/range_bench.md.
add_executable(range_bench ${CMAKE_CURRENT_LIST_DIR}/range_bench.cc)
target_include_directories(range_bench PRIVATE ${PROJECT_SOURCE_DIR}/plugin
                           ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(range_bench PRIVATE sstfilter::sstfilter)
target_compile_options(range_bench PRIVATE ${SSTFILTER_WARNINGS})
