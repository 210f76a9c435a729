#include "guard/guard_impl.h"

#include <algorithm>

namespace sstfilter {
namespace {
// The first member's FPR share and load limit (NewFilter says why).
constexpr double kGuardFirstMemberFprShare = 0.9;
constexpr double kGuardFirstMemberMaxLoad = 0.9;
}  // namespace

StripeGuard::StripeGuard(KeyLocks* locks, std::vector<size_t> stripes, bool all)
    : locks_(locks), stripes_(std::move(stripes)) {
  std::sort(stripes_.begin(), stripes_.end());
  stripes_.erase(std::unique(stripes_.begin(), stripes_.end()), stripes_.end());
  exclusive_ = all || stripes_.size() > KeyLocks::kMaxStripes;
  if (exclusive_) {
    stripes_.clear();
    locks_->gate.lock();
    return;
  }
  locks_->gate.lock_shared();
  for (size_t s : stripes_) locks_->stripe(s).lock();
}

StripeGuard::~StripeGuard() {
  if (exclusive_) {
    locks_->gate.unlock();
    return;
  }
  for (auto it = stripes_.rbegin(); it != stripes_.rend(); ++it) locks_->stripe(*it).unlock();
  locks_->gate.unlock_shared();
}

GuardedDB::Impl::Impl(GuardOptions guard, std::string db_path)
    : options(std::move(guard)),
      guard_file(options.guard_file.empty() ? db_path + "/SSTFILTER-GUARD" : options.guard_file) {
  tables_.push_back(std::make_unique<Table>());
  table_.store(tables_.back().get(), std::memory_order_release);
}

GuardedDB::Impl::~Impl() = default;

void GuardedDB::Impl::Publish(uint32_t id, std::unique_ptr<GuardFamily> guard) {
  std::lock_guard<std::mutex> lock(admin_mu_);
  auto next = std::make_unique<Table>(*table());
  if (next->known.size() <= id) {
    next->known.resize(id + 1, false);
    next->guard.resize(id + 1, nullptr);
  }
  next->known[id] = true;
  next->guard[id] = guard.get();
  if (guard) owned_.push_back(std::move(guard));
  table_.store(next.get(), std::memory_order_release);
  tables_.push_back(std::move(next));
}

std::vector<GuardFamily*> GuardedDB::Impl::Families() const {
  std::vector<GuardFamily*> out;
  for (GuardFamily* g : table()->guard) {
    if (g != nullptr) out.push_back(g);
  }
  return out;
}

bool GuardedDB::Impl::Guards(const std::string& name) const {
  return options.column_families.empty() ||
         std::find(options.column_families.begin(), options.column_families.end(), name) !=
             options.column_families.end();
}

rocksdb::Status GuardedDB::Impl::NewFilter(uint64_t capacity,
                                           std::unique_ptr<DynamicCuckooFilter>* out) const {
  DynamicCuckooOptions o;
  o.target_fpr = options.target_fpr;
  // Growth is paid for up front in fingerprint bits (one per planned
  // doubling). A family of `capacity` keys (the rebuilt count plus
  // headroom) is planned as capacity/2 doubling once, so the doubling is
  // spent while the rebuild fills it and the guard opens with no spare bit.
  // The first member, sized for the keys the DB holds, takes 90% of the FPR
  // target (the standard schedule gives it 61% and keeps the rest for
  // members that exist only once the DB outgrows its rebuilt size) and
  // fills to 90% instead of 95%: at 0.1%, 13-bit fingerprints at <= 85%
  // load when it opens, about 15.4 bits/key, where the standard schedule
  // needs 14 bits at 89% (15.7). Above about 90% load most cuckoo inserts
  // must evict, the search reads up to 8 buckets per step, and a new
  // key's write paid for it (guard_bench: 0.79-0.89x unguarded in the
  // rounds that filled the first member from 89% to 95%, 0.88-0.93x in the
  // rest; docs/design/key_guard.md). Growth past `capacity` then starts a second
  // member, which plans one doubling of its own from there, so the members
  // stay few (one more per doubling of the DB after it, at most). Small and
  // new families plan for 2^20 keys (more spare bits, one table).
  o.first_member_fpr_share = kGuardFirstMemberFprShare;
  o.first_member_max_load = kGuardFirstMemberMaxLoad;
  const uint64_t planned = std::max<uint64_t>(capacity, uint64_t{1} << 20);
  o.initial_capacity = std::max<uint64_t>(capacity - capacity / 2, 1024);  // ceil(capacity/2)
  o.expected_max_keys = std::max<uint64_t>(planned, 2 * o.initial_capacity);
  o.checked = options.checked;
  const DynamicStatus s = DynamicCuckooFilter::Create(o, out);
  if (s != DynamicStatus::kOk) {
    return rocksdb::Status::InvalidArgument("sstfilter guard: ", DynamicStatusName(s));
  }
  return rocksdb::Status::OK();
}

namespace {
// Threads spread over the counters round-robin, so two readers rarely
// share a cache line.
size_t ThreadSlot() {
  static std::atomic<size_t> next{0};
  static thread_local const size_t slot = next.fetch_add(1, std::memory_order_relaxed);
  return slot;
}
}  // namespace

void GuardedDB::Impl::CountRuledOut(uint64_t n) {
  ruled_out_[ThreadSlot() % kCounters].n.fetch_add(n, std::memory_order_relaxed);
}

uint64_t GuardedDB::Impl::RuledOut() const {
  uint64_t sum = 0;
  for (const Counter& c : ruled_out_) sum += c.n.load(std::memory_order_relaxed);
  return sum;
}

rocksdb::Status UnknownFamily(uint32_t id) {
  return rocksdb::Status::NotSupported("sstfilter guard: column family " + std::to_string(id) +
                                       " was not opened or created through GuardedDB");
}

rocksdb::Status NoHandle(const GuardFamily& g) {
  return rocksdb::Status::NotSupported("sstfilter guard: the handle of column family '" +
                                       g.name() + "' was destroyed; writes to it cannot be guarded");
}

bool DbHolds(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* h, const rocksdb::Slice& key) {
  rocksdb::PinnableSlice value;
  return db->Get(rocksdb::ReadOptions(), h, key, &value).ok();
}

rocksdb::Status FindGuard(const GuardedDB::Impl& impl, uint32_t cf_id, GuardFamily** g) {
  bool known = false;
  *g = impl.Lookup(cf_id, &known);
  return known ? rocksdb::Status::OK() : UnknownFamily(cf_id);
}

}  // namespace sstfilter
