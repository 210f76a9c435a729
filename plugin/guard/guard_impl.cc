#include "guard/guard_impl.h"

#include <algorithm>
#include <type_traits>

namespace sstfilter {
namespace {
// The share of the FPR target the filter may spend on the keys at open
// (NewFilter says why).
constexpr double kGuardOpenFprShare = 0.5;

uint64_t NextImplId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// What a reading thread keeps: its counter slot (assigned round-robin at
// its first count: a slot picked by the key's hash would save the
// thread-local lookup, a call in a shared library, but would send every
// line back and forth between the cores of concurrent readers) and its
// gate, for the DB it read last. Constant-initialized: no guard on access.
constexpr size_t kNoSlot = ~size_t{0};
struct ThreadReader {
  size_t slot = kNoSlot;
  uint64_t gate_owner = 0;  // Impl id
  guard_internal::ProbeGate gate;
};
static_assert(std::is_trivially_destructible<ThreadReader>::value,
              "a thread_local that needs no registration at thread start or exit");
thread_local ThreadReader t_reader;

// The calling thread's. In a shared library the address is a
// __tls_get_addr call, which the compiler would otherwise make again at
// each use: the empty asm hides where the pointer came from.
inline ThreadReader* ThisThread() {
  ThreadReader* reader = &t_reader;
#if defined(__GNUC__)
  asm("" : "+r"(reader));
#endif
  return reader;
}

size_t SlotOf(ThreadReader* reader) {
  if (reader->slot == kNoSlot) {
    static std::atomic<size_t> next{0};
    reader->slot = next.fetch_add(1, std::memory_order_relaxed);
  }
  return reader->slot;
}
}  // namespace

guard_internal::Impl::Impl(GuardOptions guard, std::string db_path)
    : options(std::move(guard)),
      guard_file(options.guard_file.empty() ? db_path + "/SSTFILTER-GUARD" : options.guard_file),
      adaptive_probes_(options.adaptive_probes),
      id_(NextImplId()) {
  tables_.push_back(std::make_unique<Table>());
  table_.store(tables_.back().get(), std::memory_order_release);
}

guard_internal::Impl::~Impl() { StopRepresize(/*forever=*/true); }

void guard_internal::Impl::Publish(uint32_t id, std::unique_ptr<GuardFamily> guard) {
  std::lock_guard<std::mutex> lock(admin_mu_);
  auto next = std::make_unique<Table>(*table());
  if (next->guard.size() <= id) next->guard.resize(id + 1, nullptr);
  next->guard[id] = guard.get();
  if (id == 0) default_guard_.store(guard.get(), std::memory_order_release);
  if (guard) owned_.push_back(std::move(guard));
  table_.store(next.get(), std::memory_order_release);
  tables_.push_back(std::move(next));
}

std::vector<GuardFamily*> guard_internal::Impl::Families() const {
  std::vector<GuardFamily*> out;
  for (GuardFamily* g : table()->guard) {
    if (g != nullptr) out.push_back(g);
  }
  return out;
}

bool guard_internal::Impl::Guards(const std::string& name) const {
  return options.column_families.empty() ||
         std::find(options.column_families.begin(), options.column_families.end(), name) !=
             options.column_families.end();
}

rocksdb::Status guard_internal::Impl::NewFilter(uint64_t capacity,
                                           std::unique_ptr<DynamicCuckooFilter>* out) const {
  DynamicCuckooOptions o;
  o.target_fpr = options.target_fpr;
  // Sized for the keys the DB holds (`capacity`), at the default 95% load
  // limit: the first write after open widens the table's buckets (4 to 5
  // slots, 76% full), a copy of the table and a quarter more memory, but
  // no fingerprint bits. A family of min_planned_keys or more plans no
  // growth: the keys at open may spend 50% of the FPR target (at 0.1% they
  // need 46%: 5 fp bits), and the rest is kept for growth past them, which
  // widens and splits the table without spare bits
  // (dynamic/growing_filter.h) until the re-presize at twice the keys
  // (guard_represize.cc). A larger share buys no bit at open and leaves
  // growth less. Smaller families plan for min_planned_keys, so that their
  // growth shares the 50%.
  o.first_member_fpr_share = kGuardOpenFprShare;
  o.initial_capacity = std::max<uint64_t>(capacity, 1024);
  o.expected_max_keys = std::max<uint64_t>(o.initial_capacity, options.min_planned_keys);
  const DynamicStatus s = DynamicCuckooFilter::Create(o, out);
  if (s != DynamicStatus::kOk) {
    return rocksdb::Status::InvalidArgument("sstfilter guard: ", DynamicStatusName(s));
  }
  return rocksdb::Status::OK();
}

void guard_internal::Impl::CountRuledOut(uint64_t n) {
  counters_[SlotOf(ThisThread()) % kCounterSlots].ruled_out.fetch_add(n,
                                                                       std::memory_order_relaxed);
}

// One thread-local lookup for the gate and the counter slot: a ruled-out
// Get is only a hash and a probe besides.
bool guard_internal::Impl::GatedRuledOut(const GuardFamily& g, uint64_t hash) {
  ThreadReader* reader = ThisThread();
  if (reader->gate_owner != id_) {
    reader->gate_owner = id_;
    reader->gate = ProbeGate();
  }
  if (!reader->gate.ShouldProbe()) return false;
  const bool ruled_out = !g.MayContainHash(hash);
  reader->gate.Record(ruled_out);
  const uint32_t skipped = reader->gate.TakeSkipped();
  if (skipped == 0 && !ruled_out) return false;
  Counters& c = counters_[SlotOf(reader) % kCounterSlots];
  // The Gets skipped since the thread's last probe, counted at once.
  if (skipped != 0) c.unprobed.fetch_add(skipped, std::memory_order_relaxed);
  if (ruled_out) c.ruled_out.fetch_add(1, std::memory_order_relaxed);
  return ruled_out;
}

uint64_t guard_internal::Impl::RuledOut() const {
  uint64_t sum = 0;
  for (const Counters& c : counters_) sum += c.ruled_out.load(std::memory_order_relaxed);
  return sum;
}

uint64_t guard_internal::Impl::Unprobed() const {
  uint64_t sum = 0;
  for (const Counters& c : counters_) sum += c.unprobed.load(std::memory_order_relaxed);
  return sum;
}

std::shared_ptr<GuardHook> guard_internal::Impl::NewHook() {
  std::lock_guard<std::mutex> lock(admin_mu_);
  hooks_.push_back(std::make_shared<GuardHook>());
  return hooks_.back();
}

void guard_internal::Impl::AttachHook(GuardHook* hook, GuardFamily* g) {
  hook->Attach(
      g, [](void* arg, GuardFamily* family) {
        auto* impl = static_cast<guard_internal::Impl*>(arg);
        impl->MaybeRepresize(impl->db_, family);
      },
      this);
}

void guard_internal::Impl::DetachHooks() {
  std::lock_guard<std::mutex> lock(admin_mu_);
  for (const auto& hook : hooks_) hook->Detach();
}

namespace {
thread_local int own_ingestions = 0;
}  // namespace

guard_internal::Impl::IngestScope::IngestScope() { ++own_ingestions; }
guard_internal::Impl::IngestScope::~IngestScope() { --own_ingestions; }

void guard_internal::Impl::OnIngested(const std::string& cf_name) {
  unfollowed_.store(true, std::memory_order_release);
  if (own_ingestions > 0) return;
  for (GuardFamily* g : Families()) {
    if (g->name() == cf_name && !g->dropped()) g->Disable();
  }
}

}  // namespace sstfilter
