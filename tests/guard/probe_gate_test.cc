// ProbeGate (guard/probe_gate.h) on its own: when a reader leaves probing
// every Get, what brings it back and how soon, periodic mixes included,
// and the count of skipped Gets.

#include "guard/probe_gate.h"

#include <gtest/gtest.h>

namespace sstfilter {
namespace guard_internal {
namespace {

constexpr uint32_t kEpoch = ProbeGate::kEpoch;
constexpr uint32_t kMinShare = ProbeGate::kMinShare;
constexpr uint32_t kSampleEvery = ProbeGate::kSampleEvery;
constexpr uint32_t kFloodGets = ProbeGate::kFloodGets;

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

// Gets whose keys `absent(i)` says are ruled out, until the gate probes
// every Get again; returns how many it took (`limit` + 1 if it never did).
template <typename Absent>
uint32_t GetsUntilEveryGetProbes(ProbeGate* gate, uint32_t limit, const Absent& absent) {
  for (uint32_t i = 0; i < limit; ++i) {
    if (gate->ShouldProbe()) gate->Record(absent(i));
    if (!gate->sampling()) return i + 1;
  }
  return limit + 1;
}

// Probes with `ruled_out` of them ruled out, spread evenly.
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
  return gate;
}

TEST(ProbeGateTest, ProbesEveryGetUntilAnEpochRulesOutTooFew) {
  ProbeGate gate;
  EXPECT_EQ(Gets(&gate, kEpoch - 1, false), kEpoch - 1);
  EXPECT_FALSE(gate.sampling());
  EXPECT_EQ(Gets(&gate, 1, false), 1u);
  EXPECT_TRUE(gate.sampling());
  EXPECT_EQ(gate.TakeSkipped(), 0u);
  // One probe in each window of kSampleEvery Gets.
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

// Wherever in a window the flood starts.
TEST(ProbeGateTest, AFloodBringsEveryProbeBackWithinFloodGets) {
  for (uint32_t before = 0; before < 3 * kSampleEvery; ++before) {
    ProbeGate gate = Sampling();
    Gets(&gate, before, false);
    const uint32_t took = GetsUntilEveryGetProbes(&gate, 10 * kFloodGets, [](uint32_t) {
      return true;
    });
    EXPECT_LE(took, kFloodGets) << before;
    EXPECT_EQ(Gets(&gate, 100, true), 100u);
  }
}

// The flood starts just before a sampling epoch ends: the probes in a row
// carry over the epoch's end.
TEST(ProbeGateTest, AFloodAcrossASamplingEpochsEndIsCaughtInTime) {
  for (uint32_t before : {kEpoch - kMinShare + 1, kEpoch - 1, kEpoch - kMinShare / 2}) {
    ProbeGate gate = Sampling();
    Probes(&gate, before, 0);
    ASSERT_TRUE(gate.sampling());
    EXPECT_LE(GetsUntilEveryGetProbes(&gate, 10 * kFloodGets, [](uint32_t) { return true; }),
              kFloodGets)
        << before;
  }
}

// The flood starts just before an epoch of every-Get probes ends, with too
// few of its keys in it to keep probing every Get: the row carries into
// sampling, which then needs only the rest of the kMinShare, one a window.
TEST(ProbeGateTest, AFloodAsProbingEveryGetEndsIsCaughtInTime) {
  for (uint32_t in_epoch = 1; in_epoch < kMinShare; ++in_epoch) {
    ProbeGate gate;
    Probes(&gate, kEpoch - in_epoch, 0);
    EXPECT_EQ(Gets(&gate, in_epoch, true), in_epoch);
    ASSERT_TRUE(gate.sampling()) << in_epoch;
    EXPECT_LE(GetsUntilEveryGetProbes(&gate, 10 * kFloodGets, [](uint32_t) { return true; }),
              (kMinShare - in_epoch) * kSampleEvery)
        << in_epoch;
  }
}

// One absent key in every kSampleEvery Gets, at each fixed place: a sample
// at a fixed place would miss all of them at all but one.
TEST(ProbeGateTest, APeriodicMixCannotHideItsAbsentKeys) {
  for (uint32_t phase = 0; phase < kSampleEvery; ++phase) {
    ProbeGate gate = Sampling();
    const uint32_t took = GetsUntilEveryGetProbes(
        &gate, 2 * kEpoch * kSampleEvery, [&](uint32_t i) { return i % kSampleEvery == phase; });
    EXPECT_LE(took, 2 * kEpoch * kSampleEvery) << phase;
  }
}

TEST(ProbeGateTest, SamplingStaysWhileSampledProbesRuleOutTooFew) {
  ProbeGate gate = Sampling();
  gate.TakeSkipped();
  constexpr uint32_t kProbes = 3 * kEpoch;
  for (int epoch = 0; epoch < 3; ++epoch) Probes(&gate, kEpoch, kMinShare - 1);
  EXPECT_TRUE(gate.sampling());
  // kProbes windows begun, the last up to its probe.
  const uint32_t skipped = gate.TakeSkipped();
  EXPECT_GE(skipped, (kProbes - 1) * (kSampleEvery - 1));
  EXPECT_LE(skipped, kProbes * (kSampleEvery - 1));
}

}  // namespace
}  // namespace guard_internal
}  // namespace sstfilter
