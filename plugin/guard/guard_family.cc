#include "guard/guard_family.h"

#include <algorithm>
#include <string_view>

namespace sstfilter {

GuardFamily::GuardFamily(uint32_t id, std::string name,
                         std::unique_ptr<DynamicCuckooFilter> filter,
                         rocksdb::ColumnFamilyHandle* handle)
    : id_(id), name_(std::move(name)), filter_(std::move(filter)), handle_(handle) {}

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

void GuardFamily::InsertHash(uint64_t hash) {
  std::lock_guard<std::mutex> lock(write_mu_);
  if (disabled_.load(std::memory_order_relaxed)) return;
  Account(filter_->InsertHash(hash));
}

void GuardFamily::InsertHashBatch(const uint64_t* hashes, size_t n) {
  constexpr size_t kChunk = 256;
  DynamicStatus statuses[kChunk];
  std::lock_guard<std::mutex> lock(write_mu_);
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t m = std::min(kChunk, n - start);
    filter_->InsertHashBatch(hashes + start, m, statuses);
    // As single inserts would: nothing is booked once the guard is off
    // (the chunk's later keys went into a filter no longer consulted).
    for (size_t i = 0; i < m; ++i) {
      if (disabled_.load(std::memory_order_relaxed)) return;
      Account(statuses[i]);
    }
  }
}

void GuardFamily::Account(DynamicStatus s) {
  if (s == DynamicStatus::kTooManyCopies) {
    // The fingerprint pair already holds the maximum copies: stale ones,
    // left by removals the guard cannot follow (DeleteRange re-putting the
    // same key). The key matches; it takes one of those copies as its own.
    // That is safe while the pair has no more owners (keys the DB holds
    // with this exact bucket pair and fingerprint) than copies, i.e. unless
    // more distinct live keys than the maximum collide on all of it
    // (docs/design/key_guard.md).
    adopted_.fetch_add(1, std::memory_order_relaxed);
  } else if (s != DynamicStatus::kOk) {
    // kFull: the key does not match at all; the guard cannot be exact.
    disabled_.store(true, std::memory_order_release);
    errors_.fetch_add(1, std::memory_order_relaxed);
  }
}

void GuardFamily::EraseHash(uint64_t hash) {
  std::lock_guard<std::mutex> lock(write_mu_);
  if (disabled_.load(std::memory_order_relaxed)) return;
  if (filter_->EraseHash(hash) != DynamicStatus::kOk) {
    // Only the checked mode reports this: our bookkeeping is wrong, so stop
    // trusting the filter.
    disabled_.store(true, std::memory_order_release);
    errors_.fetch_add(1, std::memory_order_relaxed);
  }
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
