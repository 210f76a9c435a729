# tree_model: a tree's expected false positives per absent lookup, as its
# filters are and at the model's optimum for the same bytes
# (tools/bench/tree_model/tree_model.cc), for tools/bench/shape_sweep.py and
# tools/research/l0_window.py.
add_executable(tree_model ${CMAKE_CURRENT_LIST_DIR}/tree_model.cc)
target_link_libraries(tree_model PRIVATE sstfilter_core)
target_include_directories(tree_model PRIVATE ${PROJECT_SOURCE_DIR}/plugin)
target_compile_options(tree_model PRIVATE ${SSTFILTER_WARNINGS})
