// Membership of RocksDB's built-in filter family (policy option
// compat=builtin): sstfilter filters stored under the built-in policies'
// meta block name, beside the built-in filters already in a DB.
//
// RocksDB finds a table's filter block by the configured policy's
// CompatibilityName() only. With compat=builtin our policies answer the
// built-in name ("rocksdb.BuiltinBloomFilter"), so one policy sees both
// kinds of bytes, and a built-in policy sees ours after a switch back:
//
//   our filter:  | sstfilter filter (payload, trailer) | 00 'S' 'S' 'T' 'F' |
//                                                        the built-in guard
//
// The guard is laid where every built-in reader (RocksDB 7.x to 11.x, in
// BuiltinFilterPolicy::GetBuiltinFilterBitsReader) reads its 5 metadata
// bytes. A first metadata byte of 0 means "zero probes": the built-in
// reader answers "may match" for every key without reading further. That
// meaning is the built-in legacy format's own, not a reserved value, so a
// later RocksDB cannot give it to a new format without misreading old
// files. Our reader (SstFilterPolicy::GetFilterBitsReader) takes bytes
// that end in the guard as ours and hands anything else to RocksDB's own
// built-in reader. docs/policy_switches.md
// and docs/design/rocksdb_integration.md weigh the choice.

#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include <rocksdb/filter_policy.h>

#include "rocksdb_adapter/rocksdb_internal.h"

namespace sstfilter {

constexpr size_t kBuiltinGuardSize = 5;

// Appends the guard to a finished sstfilter filter.
void AppendBuiltinGuard(std::string* filter);

// True if `contents` ends in the guard.
bool HasBuiltinGuard(const rocksdb::Slice& contents);

// `contents` without the guard; requires HasBuiltinGuard(contents).
rocksdb::Slice WithoutBuiltinGuard(const rocksdb::Slice& contents);

// A built-in policy, whose reader handles every built-in format (legacy
// Bloom, FastLocalBloom, Ribbon) and whose CompatibilityName() is the
// built-in family's. One instance, shared.
const std::shared_ptr<const rocksdb::FilterPolicy>& BuiltinPolicy();

}  // namespace sstfilter
