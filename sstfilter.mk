# RocksDB in-tree plugin descriptor (ROCKSDB_PLUGINS=sstfilter). RocksDB's
# CMake requires this file and reads the registrar from `sstfilter_FUNC`.
# The sources and their flags come from cmake/rocksdb_plugin.cmake only:
# RocksDB's CMake also scans this file for a source list, and would
# compile any it found without our flags, so none is given here (nor in
# any comment in the form that scan matches). RocksDB's Makefile build is
# not supported.
sstfilter_FUNC = RegisterSstFilterPlugin
