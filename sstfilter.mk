# RocksDB in-tree plugin descriptor (ROCKSDB_PLUGINS=sstfilter). RocksDB's
# CMake requires this file and reads the registrar from `sstfilter_FUNC`;
# the sources and flags come from cmake/rocksdb_plugin.cmake. (They are
# not repeated here: RocksDB's CMake would also compile any list it finds
# after "SOURCES = ", without our flags. RocksDB's Makefile build is not
# supported.)
sstfilter_FUNC = RegisterSstFilter
