// ProbeGate (guard/probe_gate.h) on its own: when a reader leaves probing
// every Get, what brings it back, and the exact count of unprobed Gets
// when threads share a gate (this test also runs under TSan).

#include "guard/probe_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace sstfilter {
namespace guard_internal {
namespace {

constexpr uint32_t kEpoch = ProbeGate::kEpoch;
constexpr uint32_t kMinShare = ProbeGate::kMinShare;
constexpr uint32_t kSampleEvery = ProbeGate::kSampleEvery;

// Gets through `gate`, each of a key ruled out if `ruled_out`; returns how
// many probed.
uint32_t Gets(ProbeGate* gate, uint32_t n, bool ruled_out) {
  uint32_t probed = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (!gate->ShouldProbe()) continue;
    ++probed;
    gate->Record(ruled_out);
  }
  return probed;
}

// Probes `hits` of an epoch ruled out, the rest not.
void Epoch(ProbeGate* gate, uint32_t hits) {
  for (uint32_t i = 0; i < kEpoch; ++i) {
    ASSERT_TRUE(gate->ShouldProbe());
    gate->Record(i < hits);
  }
}

TEST(ProbeGateTest, ProbesEveryGetUntilAnEpochRulesOutTooFew) {
  ProbeGate gate;
  EXPECT_EQ(Gets(&gate, kEpoch - 1, false), kEpoch - 1);
  EXPECT_FALSE(gate.sampling());
  EXPECT_EQ(Gets(&gate, 1, false), 1u);
  EXPECT_TRUE(gate.sampling());
  EXPECT_EQ(Gets(&gate, 80 * kSampleEvery, false), 80u);
  EXPECT_EQ(gate.unprobed(), 80u * (kSampleEvery - 1));
}

TEST(ProbeGateTest, OneInMinShareRuledOutKeepsEveryProbe) {
  ProbeGate gate;
  Epoch(&gate, kEpoch / kMinShare);
  EXPECT_FALSE(gate.sampling());
  Epoch(&gate, kEpoch / kMinShare - 1);
  EXPECT_TRUE(gate.sampling());
}

TEST(ProbeGateTest, AFloodOfAbsentKeysBringsEveryProbeBackAtOnce) {
  ProbeGate gate;
  Epoch(&gate, 0);
  ASSERT_TRUE(gate.sampling());
  // Every sampled probe rules its key out: kMinShare of them end sampling,
  // long before the epoch does.
  EXPECT_EQ(Gets(&gate, kMinShare * kSampleEvery, true), kMinShare);
  EXPECT_FALSE(gate.sampling());
  EXPECT_EQ(Gets(&gate, 100, true), 100u);
}

TEST(ProbeGateTest, SamplingStaysWhileSampledProbesRuleOutTooFew) {
  ProbeGate gate;
  Epoch(&gate, 0);
  // A whole sampled epoch with kMinShare - 1 ruled out.
  for (uint32_t i = 0; i < kEpoch; ++i) {
    while (!gate.ShouldProbe()) {
    }
    gate.Record(i < kMinShare - 1);
  }
  EXPECT_TRUE(gate.sampling());
  EXPECT_EQ(gate.unprobed(), uint64_t{kEpoch} * (kSampleEvery - 1));
}

TEST(ProbeGateTest, ThreadsSharingAGateCountEveryUnprobedGet) {
  ProbeGate gate;
  std::atomic<uint64_t> skipped{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      uint64_t mine = 0;
      for (uint32_t i = 0; i < 200000; ++i) {
        if (!gate.ShouldProbe()) {
          ++mine;
          continue;
        }
        // Thread 0 reads absent keys in bursts, the others present keys:
        // the gate goes in and out of sampling.
        gate.Record(t == 0 && (i / 4096) % 2 == 1);
      }
      skipped.fetch_add(mine);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(gate.unprobed(), skipped.load());
  EXPECT_GT(skipped.load(), 0u);
}

}  // namespace
}  // namespace guard_internal
}  // namespace sstfilter
