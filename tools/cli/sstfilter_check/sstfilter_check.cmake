# sstfilter_check: reports whether OPTIONS files / DBs really get an
# sstfilter policy (tools/cli/sstfilter_check/sstfilter_check.cc).
add_executable(sstfilter_check ${CMAKE_CURRENT_LIST_DIR}/sstfilter_check.cc)
target_link_libraries(sstfilter_check PRIVATE sstfilter::sstfilter)
target_compile_options(sstfilter_check PRIVATE ${SSTFILTER_WARNINGS})
