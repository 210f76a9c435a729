#!/usr/bin/env bash
# Builds the suite against a RocksDB built from source
# (tools/scripts/rocksdb_source.sh: its installed library, its in-tree
# db_bench/db_stress/ldb/sst_dump, and its source for rocksdb_abi_test)
# into build-rocksdb<VERSION>/ (preset "source"). Used by
# tools/scripts/test.sh (step 4) and tools/scripts/test_matrix.sh. Needs
# build/ (the Debian 7.8.3 build) for the tests that cross between the two
# versions.
#
#   tools/scripts/setup_source.sh 9.7.4
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VERSION=${1:?usage: tools/scripts/setup_source.sh VERSION}
export SSTFILTER_ROCKSDB_VERSION=$VERSION
SSTFILTER_ROCKSDB_PREFIX=$("$ROOT/tools/scripts/rocksdb_source.sh" "$VERSION" prefix)
SSTFILTER_INTREE_TOOLS=$("$ROOT/tools/scripts/rocksdb_source.sh" "$VERSION" tools)
SSTFILTER_ROCKSDB_SOURCE=$("$ROOT/tools/scripts/rocksdb_source.sh" "$VERSION" src)
export SSTFILTER_ROCKSDB_PREFIX SSTFILTER_INTREE_TOOLS SSTFILTER_ROCKSDB_SOURCE
PRESET=source "$ROOT/tools/scripts/setup.sh"
