// RocksDB's filter builder and reader interfaces (FilterBitsBuilder,
// FilterBitsReader), which RocksDB made internal in 7.0.
//
// Built in-tree (RocksDB's plugin/sstfilter, SSTFILTER_IN_TREE defined by
// cmake/rocksdb_plugin.cmake) we include RocksDB's own header. Built out of
// tree against an installed RocksDB, which ships no internal header, we
// declare the classes ourselves (filter_bits_decl.h): a declaration that
// does not match the library's vtable silently corrupts memory, so each
// layout is declared for exactly the releases whose header has it, and
// every other version is refused here and by CMake.
//
// Only plugin/rocksdb_adapter/ and the benchmark tools include this file.

#pragma once

#include <rocksdb/version.h>

#include "rocksdb_adapter/rocksdb_internal_version.h"

#if defined(SSTFILTER_IN_TREE)

#include "table/block_based/filter_policy_internal.h"

#else  // out of tree: our declaration of the version we link against

#include <cstddef>
#include <memory>

#include <rocksdb/slice.h>
#include <rocksdb/status.h>

#if ROCKSDB_MAJOR < 7 || ROCKSDB_MAJOR > SSTFILTER_NEWEST_CHECKED_MAJOR || \
    (ROCKSDB_MAJOR == SSTFILTER_NEWEST_CHECKED_MAJOR && ROCKSDB_MINOR > SSTFILTER_NEWEST_CHECKED_MINOR)
#error "sstfilter declares RocksDB's FilterBitsBuilder/Reader for 7.0-11.8 only (filter_bits_decl.h); build in-tree (ROCKSDB_PLUGINS=sstfilter) for other versions"
#endif

namespace ROCKSDB_NAMESPACE {
#include "rocksdb_adapter/filter_bits_decl.h"
}  // namespace ROCKSDB_NAMESPACE

#endif  // SSTFILTER_IN_TREE
