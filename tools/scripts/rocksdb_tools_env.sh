# Sourced by the db_bench scripts for their --rocksdb VERSION mode:
#
#   use_rocksdb VERSION "TARGETS"
#
# builds RocksDB VERSION from source (tools/scripts/rocksdb_source.sh,
# cached) with sstfilter in-tree, and TARGETS of this checkout out of tree
# against the same RocksDB (skipped with SKIP_SETUP=1). Sets ROCKSDB_BIN
# (db_bench, sst_dump, ...) and BUILD_DIR (the out-of-tree build; not the
# 7.8.3 build, which this must not reconfigure). Needs ROOT.
use_rocksdb() {
  local version=$1 targets=$2 prefix
  prefix=$("$ROOT/tools/scripts/rocksdb_source.sh" "$version" prefix)
  ROCKSDB_BIN=$("$ROOT/tools/scripts/rocksdb_source.sh" "$version" tools)
  BUILD_DIR=${ROCKSDB_BUILD_DIR:-$ROOT/build-rocksdb$version}
  if [ "${SKIP_SETUP:-0}" != 1 ]; then
    BUILD_DIR=$BUILD_DIR SETUP_TARGETS="$targets" \
      SSTFILTER_CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$prefix -DSSTFILTER_WITH_LEVELDB=OFF" \
      "$ROOT/tools/scripts/setup.sh"
  fi
}
