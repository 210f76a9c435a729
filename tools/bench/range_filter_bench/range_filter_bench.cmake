# range_filter_bench: the range filter's FPR on empty ranges (three key
# shapes, L = 1, 16, 256, uniform and correlated, 10/16/22 bits/key), its
# bytes per key, build speed and table_filter decision time
# (tools/bench/range_filter_bench/), for docs/results/range_filter.md.
add_executable(range_filter_bench ${CMAKE_CURRENT_LIST_DIR}/range_filter_bench.cc)
target_include_directories(range_filter_bench PRIVATE ${PROJECT_SOURCE_DIR}/plugin
                           ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(range_filter_bench PRIVATE sstfilter::sstfilter)
target_compile_options(range_filter_bench PRIVATE ${SSTFILTER_WARNINGS})
