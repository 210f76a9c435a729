// Adaptive probes (GuardOptions::adaptive_probes): whether a single-key Get
// probes the guard, from what one reading thread's probes have been worth
// lately.
//
// A Get of a key the DB holds pays the probe on top of its read, usually a
// memory access out of cache (guard_bench's "every Get probed" row,
// docs/results/guard.md); only a Get the guard rules out gains. So:
// - A gate starts out probing every Get. At the end of each epoch of
//   kEpoch probes, it samples if fewer than 1 in kMinShare of them were
//   ruled out.
// - Sampling, it probes 1 Get in kSampleEvery; the others go to the DB
//   unprobed. It probes every Get again as soon as kMinShare of an epoch's
//   sampled probes were ruled out, or kMinShare in a row: a flood of absent
//   keys brings every probe back within kMinShare * kSampleEvery Gets of
//   its start, and a mix with 1 in kMinShare absent or more within two
//   epochs.
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

  // Whether this Get probes; one that does not is counted as skipped.
  bool ShouldProbe() {
    if (!sampling_) return true;
    if (++tick_ % kSampleEvery == 0) return true;
    ++skipped_;
    return false;
  }

  // After a Get's probe: whether the guard ruled its key out.
  void Record(bool ruled_out) {
    ruled_out_ += ruled_out ? 1 : 0;
    ++probes_;
    if (!sampling_) {
      if (probes_ < kEpoch) return;
      sampling_ = !Enough();
    } else {
      in_a_row_ = ruled_out ? in_a_row_ + 1 : 0;
      if (Enough() || in_a_row_ >= kMinShare) {
        sampling_ = false;
      } else if (probes_ < kEpoch) {
        return;
      }
      // A sampling epoch that ends without enough stays sampling; the
      // probes in a row carry over.
    }
    if (!sampling_) in_a_row_ = 0;
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

  uint32_t probes_ = 0;     // this epoch's
  uint32_t ruled_out_ = 0;  // of them
  uint32_t in_a_row_ = 0;   // the last probes ruled out, while sampling
  uint32_t tick_ = 0;       // Gets while sampling
  uint32_t skipped_ = 0;    // not yet taken
  bool sampling_ = false;
};

}  // namespace guard_internal
}  // namespace sstfilter
