// Adaptive probes (GuardOptions::adaptive_probes): whether a single-key Get
// probes the guard, from what one reading thread's probes have been worth
// lately.
//
// A Get of a key the DB holds pays the probe on top of its read, usually a
// memory access out of cache (guard_bench's "every Get probed" rows,
// docs/results/guard.md); only a Get the guard rules out gains. So:
// - A gate starts out probing every Get. At the end of each epoch of
//   kEpoch probes, it samples if fewer than 1 in kMinShare of them were
//   ruled out.
// - Sampling, it probes one Get in each window of kSampleEvery, at a
//   pseudo-random place (fixed seed), so that no periodic mix of present
//   and absent keys can keep its absent ones out of the sample; the other
//   Gets go to the DB unprobed.
// - It probes every Get again as soon as kMinShare of an epoch's probes
//   were ruled out, or kMinShare probes in a row (counted across the
//   switch to sampling and across epochs): a flood of absent keys brings
//   every probe back within kFloodGets Gets of its start, unless a key of
//   it is a false positive of the guard, which breaks the row.
// An unprobed Get is answered by the DB, so it is never wrong, only
// unguarded.
//
// Thread safety: none; GuardedDB keeps one gate per reading thread.

#pragma once

#include <cstdint>

namespace sstfilter {
namespace guard_internal {

class ProbeGate {
 public:
  static constexpr uint32_t kEpoch = 256;
  static constexpr uint32_t kMinShare = 16;
  static constexpr uint32_t kSampleEvery = 8;
  // kMinShare sampled probes, the first in the window after the flood's
  // first Get at worst.
  static constexpr uint32_t kFloodGets = (kMinShare + 1) * kSampleEvery - 1;

  // Whether this Get probes; one that does not is counted as skipped.
  bool ShouldProbe() {
    if (!sampling_) return true;
    if (tick_ == 0) pick_ = static_cast<uint32_t>(NextRandom() >> 32) % kSampleEvery;
    const bool probe = tick_ == pick_;
    tick_ = (tick_ + 1) % kSampleEvery;
    if (!probe) ++skipped_;
    return probe;
  }

  // After a Get's probe: whether the guard ruled its key out.
  void Record(bool ruled_out) {
    ruled_out_ += ruled_out ? 1 : 0;
    in_a_row_ = ruled_out ? in_a_row_ + 1 : 0;
    ++probes_;
    if (!sampling_) {
      if (probes_ < kEpoch) return;
      sampling_ = !Enough();
      tick_ = 0;
    } else if (Enough() || in_a_row_ >= kMinShare) {
      sampling_ = false;
      in_a_row_ = 0;
    } else if (probes_ < kEpoch) {
      return;
    }  // else a sampling epoch that ends without enough: it stays sampling
    probes_ = 0;
    ruled_out_ = 0;
  }

  // The Gets skipped since the last call.
  uint32_t TakeSkipped() {
    const uint32_t n = skipped_;
    skipped_ = 0;
    return n;
  }

  bool sampling() const { return sampling_; }

 private:
  bool Enough() const { return ruled_out_ * kMinShare >= kEpoch; }  // 1 in kMinShare
  uint64_t NextRandom() {  // xorshift64
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    return rng_;
  }

  uint32_t probes_ = 0;     // this epoch's
  uint32_t ruled_out_ = 0;  // of them
  uint32_t in_a_row_ = 0;   // the last probes ruled out
  uint32_t tick_ = 0;       // the Get's place in its window, while sampling
  uint32_t pick_ = 0;       // the window's probe's place
  uint32_t skipped_ = 0;    // not yet taken
  uint64_t rng_ = 0x9e3779b97f4a7c15;
  bool sampling_ = false;
};

}  // namespace guard_internal
}  // namespace sstfilter
