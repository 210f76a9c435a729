#!/usr/bin/env bash
# Builds the suite against a RocksDB built from source (tools/rocksdb_source.sh:
# its installed library, its in-tree db_bench/db_stress/ldb/sst_dump, and its
# source for rocksdb_abi_test) into build-rocksdb<VERSION>/. Used by
# tools/test.sh (step 4) and tools/test_matrix.sh. Needs build/ (the
# Debian 7.8.3 build) for the tests that cross between the two versions.
#
#   tools/setup_source.sh 9.7.4
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VERSION=${1:?usage: tools/setup_source.sh VERSION}
prefix=$("$ROOT/tools/rocksdb_source.sh" "$VERSION" prefix)
intree=$("$ROOT/tools/rocksdb_source.sh" "$VERSION" tools)
src=$("$ROOT/tools/rocksdb_source.sh" "$VERSION" src)
BUILD_DIR="$ROOT/build-rocksdb$VERSION" \
  SSTFILTER_CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$prefix -DSSTFILTER_INTREE_TOOLS=$intree \
    -DSSTFILTER_ROCKSDB_SOURCE=$src -DSSTFILTER_CROSS_PLUGIN=$ROOT/build/libsstfilter.so \
    -DSSTFILTER_WITH_LEVELDB=OFF" \
  "$ROOT/tools/setup.sh"
