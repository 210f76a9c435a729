// GuardedDB's reads: Get, MultiGet and KeyMayExist answer NotFound for a
// key the guard rules out without entering RocksDB, and pass the rest to
// the DB (in one call for a batch). A Get probes only while probing pays
// (GuardOptions::adaptive_probes).

#include <sstfilter/guarded_db.h>

#include <algorithm>
#include <vector>

#include "guard/guard_impl.h"
#include "rocksdb_adapter/slice_hash.h"

namespace sstfilter {
namespace {

// The guard describes the latest state only: a snapshot or timestamp read
// may ask for a key deleted since, so those go to the DB.
bool Bypass(const rocksdb::ReadOptions& ro) {
  return ro.snapshot != nullptr || ro.timestamp != nullptr;
}

// True if the guard proves the key absent.
bool IsRuledOut(const guard_internal::Impl& impl, rocksdb::ColumnFamilyHandle* cf,
              const rocksdb::Slice& key) {
  const GuardFamily* g = impl.GuardOf(cf);
  return g != nullptr && !g->MayContainHash(KeyHash(key));
}

// IsRuledOut for a single-key Get, counted; with adaptive probes, only if
// the reading thread's gate lets this Get probe (probe_gate.h). Reads of
// unguarded families leave the gate as it is.
bool GetRuledOut(guard_internal::Impl& impl, rocksdb::ColumnFamilyHandle* cf,
                 const rocksdb::Slice& key) {
  const GuardFamily* g = impl.GuardOf(cf);
  if (g == nullptr) return false;
  if (!impl.adaptive_probes()) {
    if (g->MayContainHash(KeyHash(key))) return false;
    impl.CountRuledOut(1);
    return true;
  }
  return impl.GatedRuledOut(*g, KeyHash(key));
}

}  // namespace

#if ROCKSDB_MAJOR >= 9
rocksdb::Status GuardedDB::Get(const rocksdb::ReadOptions& options,
                               rocksdb::ColumnFamilyHandle* cf, const rocksdb::Slice& key,
                               rocksdb::PinnableSlice* value, std::string* timestamp) {
  if (timestamp == nullptr && !Bypass(options) && GetRuledOut(*impl_, cf, key)) {
    value->Reset();
    return rocksdb::Status::NotFound();
  }
  return db_->Get(options, cf, key, value, timestamp);
}
#else
rocksdb::Status GuardedDB::Get(const rocksdb::ReadOptions& options,
                               rocksdb::ColumnFamilyHandle* cf, const rocksdb::Slice& key,
                               rocksdb::PinnableSlice* value) {
  if (!Bypass(options) && GetRuledOut(*impl_, cf, key)) {
    value->Reset();
    return rocksdb::Status::NotFound();
  }
  return db_->Get(options, cf, key, value);
}

bool GuardedDB::KeyMayExist(const rocksdb::ReadOptions& options,
                            rocksdb::ColumnFamilyHandle* cf, const rocksdb::Slice& key,
                            std::string* value, std::string* timestamp, bool* value_found) {
  if (timestamp == nullptr && !Bypass(options) && IsRuledOut(*impl_, cf, key)) {
    impl_->CountRuledOut(1);
    if (value_found != nullptr) *value_found = false;
    return false;
  }
  return db_->KeyMayExist(options, cf, key, value, timestamp, value_found);
}
#endif

bool GuardedDB::KeyMayExist(const rocksdb::ReadOptions& options,
                            rocksdb::ColumnFamilyHandle* cf, const rocksdb::Slice& key,
                            std::string* value, bool* value_found) {
  if (!Bypass(options) && IsRuledOut(*impl_, cf, key)) {
    impl_->CountRuledOut(1);
    if (value_found != nullptr) *value_found = false;
    return false;
  }
  return db_->KeyMayExist(options, cf, key, value, value_found);
}

namespace {

// Batched reads: the keys the guard rules out get NotFound here, the rest
// go to the DB in one call (in their original order, so sorted input stays
// sorted). `call` does that DB call on compacted arrays.
template <typename Call>
void SplitMultiGet(const guard_internal::Impl& impl, size_t n, rocksdb::ColumnFamilyHandle* const* cfs,
                   bool one_cf, const rocksdb::Slice* keys, rocksdb::PinnableSlice* values,
                   std::string* timestamps, rocksdb::Status* statuses, uint64_t* ruled_out,
                   const Call& call) {
  // Ruled-out keys are answered in place; kept holds the others (allocated
  // only if there are any).
  std::vector<size_t> kept;
  auto answer = [&](size_t i, bool may) {
    if (may) {
      kept.push_back(i);
    } else {
      values[i].Reset();
      statuses[i] = rocksdb::Status::NotFound();
    }
  };
  bool same_cf = true;
  for (size_t i = 1; i < n && !one_cf && same_cf; ++i) same_cf = cfs[i] == cfs[0];
  const GuardFamily* g = n > 0 && (one_cf || same_cf) ? impl.GuardOf(cfs[0]) : nullptr;
  if (g != nullptr) {
    // One family: batched probes, buckets prefetched.
    constexpr size_t kChunk = 64;
    bool may[kChunk];
    for (size_t start = 0; start < n; start += kChunk) {
      const size_t m = std::min(kChunk, n - start);
      g->MayContainBatch(keys + start, m, may);
      for (size_t j = 0; j < m; ++j) answer(start + j, may[j]);
    }
  } else {
    for (size_t i = 0; i < n; ++i) answer(i, !IsRuledOut(impl, cfs[one_cf ? 0 : i], keys[i]));
  }
  *ruled_out = n - kept.size();
  if (kept.size() == n) {
    call(n, cfs, keys, values, timestamps, statuses);
    return;
  }
  if (kept.empty()) return;
  const size_t m = kept.size();
  std::vector<rocksdb::ColumnFamilyHandle*> cf2(one_cf ? 1 : m, cfs[0]);
  std::vector<rocksdb::Slice> k2(m);
  std::vector<rocksdb::PinnableSlice> v2(m);
  std::vector<rocksdb::Status> s2(m);
  std::vector<std::string> ts2(timestamps != nullptr ? m : 0);
  for (size_t j = 0; j < m; ++j) {
    if (!one_cf) cf2[j] = cfs[kept[j]];
    k2[j] = keys[kept[j]];
  }
  call(m, cf2.data(), k2.data(), v2.data(), timestamps != nullptr ? ts2.data() : nullptr,
       s2.data());
  for (size_t j = 0; j < m; ++j) {
    values[kept[j]] = std::move(v2[j]);
    statuses[kept[j]] = s2[j];
    if (timestamps != nullptr) timestamps[kept[j]] = std::move(ts2[j]);
  }
}

}  // namespace

#if ROCKSDB_MAJOR >= 9
void GuardedDB::MultiGet(const rocksdb::ReadOptions& options, size_t num_keys,
                         rocksdb::ColumnFamilyHandle** cfs, const rocksdb::Slice* keys,
                         rocksdb::PinnableSlice* values, std::string* timestamps,
                         rocksdb::Status* statuses, bool sorted_input) {
  if (timestamps != nullptr || Bypass(options)) {
    return db_->MultiGet(options, num_keys, cfs, keys, values, timestamps, statuses,
                         sorted_input);
  }
  uint64_t ruled_out = 0;
  SplitMultiGet(*impl_, num_keys, cfs, false, keys, values, nullptr, statuses, &ruled_out,
                [&](size_t n, rocksdb::ColumnFamilyHandle* const* c, const rocksdb::Slice* k,
                    rocksdb::PinnableSlice* v, std::string* ts, rocksdb::Status* st) {
                  db_->MultiGet(options, n, const_cast<rocksdb::ColumnFamilyHandle**>(c), k, v,
                                ts, st, sorted_input);
                });
  if (ruled_out != 0) impl_->CountRuledOut(ruled_out);
}
#else
void GuardedDB::MultiGet(const rocksdb::ReadOptions& options, rocksdb::ColumnFamilyHandle* cf,
                         size_t num_keys, const rocksdb::Slice* keys,
                         rocksdb::PinnableSlice* values, rocksdb::Status* statuses,
                         bool sorted_input) {
  if (Bypass(options)) {
    return db_->MultiGet(options, cf, num_keys, keys, values, statuses, sorted_input);
  }
  uint64_t ruled_out = 0;
  SplitMultiGet(*impl_, num_keys, &cf, true, keys, values, nullptr, statuses, &ruled_out,
                [&](size_t n, rocksdb::ColumnFamilyHandle* const* c, const rocksdb::Slice* k,
                    rocksdb::PinnableSlice* v, std::string*, rocksdb::Status* st) {
                  db_->MultiGet(options, c[0], n, k, v, st, sorted_input);
                });
  if (ruled_out != 0) impl_->CountRuledOut(ruled_out);
}

void GuardedDB::MultiGet(const rocksdb::ReadOptions& options, size_t num_keys,
                         rocksdb::ColumnFamilyHandle** cfs, const rocksdb::Slice* keys,
                         rocksdb::PinnableSlice* values, rocksdb::Status* statuses,
                         bool sorted_input) {
  if (Bypass(options)) {
    return db_->MultiGet(options, num_keys, cfs, keys, values, statuses, sorted_input);
  }
  uint64_t ruled_out = 0;
  SplitMultiGet(*impl_, num_keys, cfs, false, keys, values, nullptr, statuses, &ruled_out,
                [&](size_t n, rocksdb::ColumnFamilyHandle* const* c, const rocksdb::Slice* k,
                    rocksdb::PinnableSlice* v, std::string*, rocksdb::Status* st) {
                  db_->MultiGet(options, n, const_cast<rocksdb::ColumnFamilyHandle**>(c), k, v,
                                st, sorted_input);
                });
  if (ruled_out != 0) impl_->CountRuledOut(ruled_out);
}

std::vector<rocksdb::Status> GuardedDB::MultiGet(
    const rocksdb::ReadOptions& options, const std::vector<rocksdb::ColumnFamilyHandle*>& cfs,
    const std::vector<rocksdb::Slice>& keys, std::vector<std::string>* values) {
  if (Bypass(options)) return db_->MultiGet(options, cfs, keys, values);
  const size_t n = keys.size();
  std::vector<rocksdb::ColumnFamilyHandle*> cf2;
  std::vector<rocksdb::Slice> k2;
  std::vector<size_t> kept;
  for (size_t i = 0; i < n; ++i) {
    if (!IsRuledOut(*impl_, cfs[i], keys[i])) {
      kept.push_back(i);
      cf2.push_back(cfs[i]);
      k2.push_back(keys[i]);
    }
  }
  if (kept.size() == n) return db_->MultiGet(options, cfs, keys, values);
  impl_->CountRuledOut(n - kept.size());
  std::vector<std::string> v2;
  std::vector<rocksdb::Status> s2;
  if (!kept.empty()) s2 = db_->MultiGet(options, cf2, k2, &v2);
  std::vector<rocksdb::Status> statuses(n, rocksdb::Status::NotFound());
  values->assign(n, std::string());
  for (size_t j = 0; j < kept.size(); ++j) {
    statuses[kept[j]] = s2[j];
    (*values)[kept[j]] = std::move(v2[j]);
  }
  return statuses;
}
#endif

}  // namespace sstfilter
