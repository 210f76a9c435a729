#include "guard_family.h"

namespace sstfilter {

GuardFamily::GuardFamily(uint32_t id, std::string name,
                         std::unique_ptr<DynamicCuckooFilter> filter,
                         rocksdb::ColumnFamilyHandle* handle)
    : id_(id), name_(std::move(name)), filter_(std::move(filter)), handle_(handle) {}

void GuardFamily::InsertHash(uint64_t hash) {
  std::lock_guard<std::mutex> lock(write_mu_);
  if (disabled_.load(std::memory_order_relaxed)) return;
  const DynamicStatus s = filter_->InsertHash(hash);
  if (s == DynamicStatus::kTooManyCopies) {
    // The fingerprint pair already holds the maximum copies: stale ones,
    // left by removals the guard cannot follow (DeleteRange re-putting the
    // same key). The key matches; it takes one of those copies as its own.
    // That is safe while the pair has no more owners (keys the DB holds
    // with this exact bucket pair and fingerprint) than copies, i.e. unless
    // more distinct live keys than the maximum collide on all of it
    // (docs/design.md, "Key guard").
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
