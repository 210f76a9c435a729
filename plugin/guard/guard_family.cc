#include "guard/guard_family.h"

#include <algorithm>
#include <string_view>

namespace sstfilter {

GuardFamily::GuardFamily(uint32_t id, std::string name,
                         std::unique_ptr<DynamicCuckooFilter> filter,
                         rocksdb::ColumnFamilyHandle* handle)
    : engine_(filter != nullptr ? dynamic_cuckoo::GrowingEngineOf(*filter) : nullptr),
      filter_(std::move(filter)),
      id_(id),
      name_(std::move(name)),
      handle_(handle) {}

void GuardFamily::MayContainBatch(const rocksdb::Slice* keys, size_t n, bool* out) const {
  if (!enabled()) {
    std::fill(out, out + n, true);
    return;
  }
  constexpr size_t kChunk = 64;
  std::string_view views[kChunk];
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t m = std::min(kChunk, n - start);
    for (size_t i = 0; i < m; ++i) {
      views[i] = std::string_view(keys[start + i].data(), keys[start + i].size());
    }
    filter_->ContainsBatch(views, m, out + start);
  }
}

bool GuardFamily::Add(uint64_t hash, uint64_t seq) {
  if (seq != 0) {
    // Always a read-modify-write, so that StartLog's read of max_seq_ sees
    // this one's or a later one (GuardFamily::StartLog).
    uint64_t m = max_seq_.load(std::memory_order_relaxed);
    while (!max_seq_.compare_exchange_weak(m, m < seq ? seq : m, std::memory_order_seq_cst,
                                           std::memory_order_relaxed)) {
    }
  }
  // An overwrite's common case: matched, no lock. While a re-presize logs,
  // every key goes under the lock to the log.
  if (!logging_.load(std::memory_order_seq_cst) && MayContainHash(hash)) return false;
  std::lock_guard<std::mutex> lock(write_mu_);
  return AddLocked(hash);
}

bool GuardFamily::AddLocked(uint64_t hash) {
  if (logging_.load(std::memory_order_relaxed)) log_.push_back(hash);
  if (disabled_.load(std::memory_order_relaxed) || filter_->ContainsHash(hash)) return false;
  const DynamicStatus s = filter_->InsertHash(hash);
  if (s == DynamicStatus::kOk) return true;
  // kFull: the key does not match; the guard can no longer answer "absent".
  disabled_.store(true, std::memory_order_release);
  errors_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

void GuardFamily::AddBatch(const uint64_t* hashes, size_t n) {
  constexpr size_t kChunk = 256;
  DynamicStatus statuses[kChunk];
  std::lock_guard<std::mutex> lock(write_mu_);
  for (size_t start = 0; start < n && !disabled_.load(std::memory_order_relaxed);
       start += kChunk) {
    const size_t m = std::min(kChunk, n - start);
    // Distinct keys (a scan's) that share an entry take one copy each:
    // harmless, since nothing is ever erased.
    filter_->InsertHashBatch(hashes + start, m, statuses);
    for (size_t i = 0; i < m; ++i) {
      if (statuses[i] == DynamicStatus::kOk || statuses[i] == DynamicStatus::kTooManyCopies) {
        continue;
      }
      disabled_.store(true, std::memory_order_release);
      errors_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
}

void GuardFamily::Disable() {
  if (!disabled_.exchange(true, std::memory_order_acq_rel)) {
    errors_.fetch_add(1, std::memory_order_relaxed);
  }
}

uint64_t GuardFamily::StartLog() {
  std::lock_guard<std::mutex> lock(write_mu_);
  log_.clear();
  deletes_.store(0, std::memory_order_relaxed);  // the scan drops what they removed
  logging_.store(true, std::memory_order_seq_cst);
  return max_seq_.load(std::memory_order_seq_cst);
}

std::vector<uint64_t> GuardFamily::TakeLog() {
  std::vector<uint64_t> out;
  std::lock_guard<std::mutex> lock(write_mu_);
  out.swap(log_);
  return out;
}

bool GuardFamily::Replay(const std::vector<uint64_t>& hashes, DynamicCuckooFilter* fresh) {
  for (uint64_t h : hashes) {
    if (!fresh->ContainsHash(h) && fresh->InsertHash(h) != DynamicStatus::kOk) return false;
  }
  return true;
}

bool GuardFamily::FinishRepresize(std::unique_ptr<DynamicCuckooFilter> fresh) {
  std::lock_guard<std::mutex> lock(write_mu_);
  logging_.store(false, std::memory_order_seq_cst);
  std::vector<uint64_t> rest;
  rest.swap(log_);
  if (disabled_.load(std::memory_order_relaxed) || !Replay(rest, fresh.get())) return false;
  return filter_->ReplaceWith(std::move(fresh)) == DynamicStatus::kOk;
}

void GuardFamily::AbandonLog() {
  std::lock_guard<std::mutex> lock(write_mu_);
  logging_.store(false, std::memory_order_seq_cst);
  std::vector<uint64_t>().swap(log_);
}

bool GuardFamily::Save(std::string* out) const {
  std::lock_guard<std::mutex> lock(write_mu_);
  if (disabled_.load(std::memory_order_relaxed)) return false;
  filter_->Save(out);
  return true;
}

uint64_t GuardFamily::Size() const {
  std::lock_guard<std::mutex> lock(write_mu_);
  return filter_->Size();
}

uint64_t GuardFamily::MemoryBytes() const {
  std::lock_guard<std::mutex> lock(write_mu_);
  return filter_->MemoryBytes();
}

}  // namespace sstfilter
