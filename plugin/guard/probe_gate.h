// Adaptive probes (GuardOptions::adaptive_probes): whether a single-key Get
// probes the guard, from what the guard's probes have been worth lately.
//
// A Get of a key the DB holds pays the probe on top of its read, usually a
// memory access out of cache (about 5% of such a Get in guard_bench); only
// a Get the guard rules out gains. So while the probes of a reader rule
// out fewer than 1 in kMinShare keys, it probes 1 Get in kSampleEvery and
// sends the others to the DB unprobed; as soon as 1 in kMinShare of its
// sampled probes are ruled out again (a flood of absent keys shows within
// kMinShare * kSampleEvery Gets) it probes every Get. An unprobed Get is
// answered by the DB, so it is never wrong, only unguarded.
//
// Decisions are made over epochs of kEpoch probes. A reader starts out
// probing every Get.
//
// Thread safety: any number of threads may share a gate (GuardedDB gives
// each reading thread one of a few, round-robin). Its state is relaxed
// loads and stores, not read-modify-writes: threads sharing it may lose
// each other's updates, which only blurs the statistics; every answer is
// safe. The count of unprobed Gets is exact.

#pragma once

#include <atomic>
#include <cstdint>

namespace sstfilter {
namespace guard_internal {

class ProbeGate {
 public:
  static constexpr uint32_t kEpoch = 256;
  static constexpr uint32_t kMinShare = 16;
  static constexpr uint32_t kSampleEvery = 8;

  // Whether this Get probes; a Get that does not is counted unprobed.
  bool ShouldProbe() {
    if (!sampling_.load(std::memory_order_relaxed)) return true;
    const uint32_t tick = tick_.load(std::memory_order_relaxed) + 1;
    tick_.store(tick, std::memory_order_relaxed);
    if (tick % kSampleEvery == 0) return true;
    unprobed_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }

  // After a Get's probe: whether the guard ruled its key out.
  void Record(bool ruled_out) {
    const uint32_t probes = probes_.load(std::memory_order_relaxed) + 1;
    const uint32_t hits = hits_.load(std::memory_order_relaxed) + (ruled_out ? 1 : 0);
    const bool sampling = sampling_.load(std::memory_order_relaxed);
    const bool enough = hits * kMinShare >= kEpoch;  // 1 in kMinShare of an epoch
    if (probes < kEpoch && !(sampling && enough)) {
      probes_.store(probes, std::memory_order_relaxed);
      hits_.store(hits, std::memory_order_relaxed);
      return;
    }
    sampling_.store(!enough, std::memory_order_relaxed);
    probes_.store(0, std::memory_order_relaxed);
    hits_.store(0, std::memory_order_relaxed);
  }

  bool sampling() const { return sampling_.load(std::memory_order_relaxed); }
  uint64_t unprobed() const { return unprobed_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint32_t> probes_{0};  // this epoch's
  std::atomic<uint32_t> hits_{0};    // of them ruled out
  std::atomic<uint32_t> tick_{0};    // Gets while sampling
  std::atomic<bool> sampling_{false};
  std::atomic<uint64_t> unprobed_{0};
};

}  // namespace guard_internal
}  // namespace sstfilter
