// ProbeGate (guard/probe_gate.h) on its own: when a reader leaves probing
// every Get, what brings it back and how soon, and the count of skipped
// Gets.

#include "guard/probe_gate.h"

#include <gtest/gtest.h>

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

// Probes with `ruled_out` of them ruled out, spread evenly (every Get
// probes only while not sampling: callers check).
void Probes(ProbeGate* gate, uint32_t n, uint32_t ruled_out) {
  for (uint32_t i = 0; i < n; ++i) {
    while (!gate->ShouldProbe()) {
    }
    gate->Record(i * ruled_out / n != (i + 1) * ruled_out / n);
  }
}

ProbeGate Sampling() {
  ProbeGate gate;
  Probes(&gate, kEpoch, 0);
  EXPECT_TRUE(gate.sampling());
  gate.TakeSkipped();
  return gate;
}

TEST(ProbeGateTest, ProbesEveryGetUntilAnEpochRulesOutTooFew) {
  ProbeGate gate;
  EXPECT_EQ(Gets(&gate, kEpoch - 1, false), kEpoch - 1);
  EXPECT_FALSE(gate.sampling());
  EXPECT_EQ(Gets(&gate, 1, false), 1u);
  EXPECT_TRUE(gate.sampling());
  EXPECT_EQ(gate.TakeSkipped(), 0u);
  EXPECT_EQ(Gets(&gate, 80 * kSampleEvery, false), 80u);
  EXPECT_EQ(gate.TakeSkipped(), 80u * (kSampleEvery - 1));
  EXPECT_EQ(gate.TakeSkipped(), 0u);
}

TEST(ProbeGateTest, OneInMinShareRuledOutKeepsEveryProbe) {
  ProbeGate gate;
  Probes(&gate, kEpoch, kEpoch / kMinShare);
  EXPECT_FALSE(gate.sampling());
  Probes(&gate, kEpoch, kEpoch / kMinShare - 1);
  EXPECT_TRUE(gate.sampling());
}

TEST(ProbeGateTest, AFloodBringsEveryProbeBackWithinMinShareSampledProbes) {
  ProbeGate gate = Sampling();
  EXPECT_EQ(Gets(&gate, kMinShare * kSampleEvery, true), kMinShare);
  EXPECT_FALSE(gate.sampling());
  EXPECT_EQ(Gets(&gate, 100, true), 100u);
}

// The flood starts just before a sampling epoch ends: the probes in a row
// carry over the epoch's end.
TEST(ProbeGateTest, AFloodAcrossAnEpochsEndIsStillCaughtInTime) {
  for (uint32_t before : {kEpoch - kMinShare + 1, kEpoch - 1, kEpoch - kMinShare / 2}) {
    ProbeGate gate = Sampling();
    Probes(&gate, before, 0);
    ASSERT_TRUE(gate.sampling());
    EXPECT_EQ(Gets(&gate, kMinShare * kSampleEvery, true), kMinShare) << before;
    EXPECT_FALSE(gate.sampling()) << before;
  }
}

TEST(ProbeGateTest, AMixAtOneInMinShareBringsEveryProbeBack) {
  ProbeGate gate = Sampling();
  Probes(&gate, kEpoch, kEpoch / kMinShare);
  EXPECT_FALSE(gate.sampling());
}

TEST(ProbeGateTest, SamplingStaysWhileSampledProbesRuleOutTooFew) {
  ProbeGate gate = Sampling();
  for (int epoch = 0; epoch < 3; ++epoch) Probes(&gate, kEpoch, kMinShare - 1);
  EXPECT_TRUE(gate.sampling());
  EXPECT_EQ(gate.TakeSkipped(), 3u * kEpoch * (kSampleEvery - 1));
}

}  // namespace
}  // namespace guard_internal
}  // namespace sstfilter
