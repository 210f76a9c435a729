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
  if (logging_) log_.push_back({hash, false});
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
      if (logging_) log_.push_back({hashes[start + i], false});
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
  if (logging_) log_.push_back({hash, true});
}

void GuardFamily::StartLog() {
  std::lock_guard<std::mutex> lock(write_mu_);
  log_.clear();
  logging_ = true;
}

std::vector<GuardFamily::LoggedOp> GuardFamily::TakeLog() {
  std::vector<LoggedOp> out;
  std::lock_guard<std::mutex> lock(write_mu_);
  out.swap(log_);
  return out;
}

bool GuardFamily::Replay(const std::vector<LoggedOp>& ops, DynamicCuckooFilter* fresh) {
  for (const LoggedOp& op : ops) {
    const DynamicStatus s = op.erase ? fresh->EraseHash(op.hash) : fresh->InsertHash(op.hash);
    // An insert that found its pair full adopts a copy, as Account does.
    if (s != DynamicStatus::kOk && !(s == DynamicStatus::kTooManyCopies && !op.erase)) {
      return false;
    }
  }
  return true;
}

bool GuardFamily::FinishRepresize(std::unique_ptr<DynamicCuckooFilter> fresh) {
  std::lock_guard<std::mutex> lock(write_mu_);
  logging_ = false;
  std::vector<LoggedOp> rest;
  rest.swap(log_);
  if (disabled_.load(std::memory_order_relaxed) || !Replay(rest, fresh.get())) return false;
  return filter_->ReplaceWith(std::move(fresh)) == DynamicStatus::kOk;
}

void GuardFamily::AbandonLog() {
  std::lock_guard<std::mutex> lock(write_mu_);
  logging_ = false;
  std::vector<LoggedOp>().swap(log_);
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
