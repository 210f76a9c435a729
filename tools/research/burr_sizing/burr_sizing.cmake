# burr_sizing: the bumped ribbon filter's space over the bound, FPR and
# speed across key counts and budgets (tools/research/burr_sizing/burr_sizing.cc),
# for docs/design/burr.md and the tuning in plugin/filters/burr_banding.h.
add_executable(burr_sizing ${CMAKE_CURRENT_LIST_DIR}/burr_sizing.cc)
target_link_libraries(burr_sizing PRIVATE sstfilter_core)
target_compile_options(burr_sizing PRIVATE ${SSTFILTER_WARNINGS})
