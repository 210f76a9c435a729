# sstfilter as RocksDB's in-tree plugin: with this project at
# <rocksdb>/plugin/sstfilter, RocksDB's CMake (ROCKSDB_PLUGINS=sstfilter)
# runs our CMakeLists.txt, which includes this file and returns. We only
# hand RocksDB our sources and their flags: RocksDB compiles them into
# librocksdb with its own flags, and registers the policies at startup
# through sstfilter_FUNC in sstfilter.mk.
#
# The flags apply to our files alone, so adding the plugin recompiles no
# RocksDB file. SSTFILTER_IN_TREE makes plugin/rocksdb_adapter/rocksdb_internal.h
# use RocksDB's real internal header instead of our declaration.

include(${CMAKE_CURRENT_LIST_DIR}/sources.cmake)
set(sstfilter_SOURCES ${SSTFILTER_CORE_SOURCES} ${SSTFILTER_ROCKSDB_SOURCES} PARENT_SCOPE)
set(sstfilter_COMPILE_FLAGS
    "-I${CMAKE_CURRENT_LIST_DIR}/../plugin/include -I${CMAKE_CURRENT_LIST_DIR}/../plugin -DSSTFILTER_IN_TREE" PARENT_SCOPE)
