// Adaptive probes (GuardOptions::adaptive_probes) on a real RocksDB: a
// reader whose probes rule nothing out probes 1 Get in 8 and sends the
// rest to the DB, a flood of absent keys brings every probe back, reads of
// an unguarded family leave the gate alone, and no present key is missed
// on any thread. A thread's Gets step its own gate deterministically (its
// sample's places come from a fixed seed); the Gets it skips are counted
// at its next probe.

#include <rocksdb/statistics.h>

#include <thread>

#include "guard/probe_gate.h"
#include "guard_test_util.h"

namespace sstfilter {
namespace test {
namespace {

using guard_internal::ProbeGate;

constexpr int kKeys = 2000;

class AdaptiveProbesTest : public ::testing::Test {
 protected:
  void Open(bool adaptive, std::vector<std::string> guarded = {}) {
    GuardOptions g = QuietGuard();
    g.adaptive_probes = adaptive;
    g.column_families = std::move(guarded);
    options_.statistics = rocksdb::CreateDBStatistics();
    ASSERT_TRUE(GuardedDB::Open(options_, g, dir_.path(), &db_).ok());
    for (int i = 0; i < kKeys; ++i) ASSERT_TRUE(db_->Put({}, KeyAt(i), "v").ok());
    ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
  }
  // Gets that reached the DB (each looks in the memtable first).
  uint64_t DbGets() const {
    return options_.statistics->getTickerCount(rocksdb::MEMTABLE_HIT) +
           options_.statistics->getTickerCount(rocksdb::MEMTABLE_MISS);
  }
  // Gets of present keys [first, first + n): how many were not found.
  int ReadPresent(int first, int n, rocksdb::ColumnFamilyHandle* cf = nullptr) {
    if (cf == nullptr) cf = db_->DefaultColumnFamily();
    int missed = 0;
    std::string v;
    for (int i = first; i < first + n; ++i) {
      missed += db_->Get(ro_, cf, KeyAt(i % kKeys), &v).ok() ? 0 : 1;
    }
    return missed;
  }
  void ReadAbsent(int first, int n) {
    std::string v;
    for (int i = first; i < first + n; ++i) {
      ASSERT_TRUE(db_->Get(ro_, AbsentKeyAt(i), &v).IsNotFound());
    }
  }
  uint64_t Unprobed() const { return db_->GetGuardStats().unprobed_gets; }

  TempDir dir_;
  rocksdb::Options options_ = GuardTestOptions();
  std::unique_ptr<GuardedDB> db_;
  rocksdb::ReadOptions ro_;
};

TEST_F(AdaptiveProbesTest, PresentReadsProbeOneGetInEight) {
  Open(true);
  EXPECT_EQ(ReadPresent(0, ProbeGate::kEpoch), 0);
  EXPECT_EQ(Unprobed(), 0u);  // the first epoch probes every Get
  const uint64_t db_gets = DbGets();
  EXPECT_EQ(ReadPresent(ProbeGate::kEpoch, 800), 0);
  // 100 windows of 8 Gets, one probe each; the Gets a window skips after
  // its probe are counted at the next.
  EXPECT_LE(Unprobed(), 700u);
  EXPECT_GE(Unprobed(), 700u - (ProbeGate::kSampleEvery - 1));
  EXPECT_EQ(DbGets() - db_gets, 800u);  // present keys all reach the DB
}

TEST_F(AdaptiveProbesTest, AFloodOfAbsentKeysIsRuledOutWithinAFewSampledProbes) {
  Open(true);
  ASSERT_EQ(ReadPresent(0, 2 * ProbeGate::kEpoch), 0);
  ASSERT_GT(Unprobed(), 0u);
  // Sampled probes find kMinShare absent keys within kFloodGets Gets; from
  // then on every absent Get is ruled out (the guard's FPR is 0.1%: allow a
  // few through).
  const uint64_t first_gets = DbGets();
  const uint64_t first_ruled = db_->RuledOut();
  const int window = static_cast<int>(ProbeGate::kFloodGets);
  ReadAbsent(0, window);
  EXPECT_GE(db_->RuledOut() - first_ruled, ProbeGate::kMinShare);
  EXPECT_LE(DbGets() - first_gets, static_cast<uint64_t>(window) - ProbeGate::kMinShare);
  const uint64_t gets = DbGets();
  ReadAbsent(window, 1000);
  EXPECT_LE(DbGets() - gets, 10u);
  // And present keys are still found.
  EXPECT_EQ(ReadPresent(0, kKeys), 0);
}

TEST_F(AdaptiveProbesTest, WithoutAdaptiveProbesEveryGetProbes) {
  Open(false);
  ASSERT_EQ(ReadPresent(0, kKeys), 0);
  const uint64_t gets = DbGets();
  ReadAbsent(0, 1000);
  EXPECT_EQ(Unprobed(), 0u);
  EXPECT_LE(DbGets() - gets, 10u);
}

TEST_F(AdaptiveProbesTest, ReadsOfAnUnguardedFamilyLeaveTheGateAlone) {
  Open(true, {"default"});
  rocksdb::ColumnFamilyHandle* plain = nullptr;
  ASSERT_TRUE(db_->CreateColumnFamily(options_, "plain", &plain).ok());
  for (int i = 0; i < kKeys; ++i) ASSERT_TRUE(db_->Put({}, plain, KeyAt(i), "v").ok());
  // Enough unguarded reads to fill several epochs, had they counted.
  EXPECT_EQ(ReadPresent(0, kKeys, plain), 0);
  const uint64_t gets = DbGets();
  ReadAbsent(0, 1000);
  EXPECT_LE(DbGets() - gets, 10u);
  EXPECT_EQ(Unprobed(), 0u);
  ASSERT_TRUE(db_->DestroyColumnFamilyHandle(plain).ok());
}

// A thread's gate serves the GuardedDB it read last: reading two in turn,
// it starts afresh at each switch and so probes every Get of both.
TEST_F(AdaptiveProbesTest, AThreadReadingTwoDBsInTurnProbesEveryGet) {
  Open(true);
  TempDir other_dir;
  std::unique_ptr<GuardedDB> other;
  ASSERT_TRUE(GuardedDB::Open(options_, QuietGuard(), other_dir.path(), &other).ok());
  for (int i = 0; i < kKeys; ++i) ASSERT_TRUE(other->Put({}, KeyAt(i), "v").ok());
  std::string v;
  for (int i = 0; i < 4 * static_cast<int>(ProbeGate::kEpoch); ++i) {
    ASSERT_TRUE(db_->Get(ro_, KeyAt(i % kKeys), &v).ok());
    ASSERT_TRUE(other->Get(ro_, KeyAt(i % kKeys), &v).ok());
  }
  EXPECT_EQ(Unprobed(), 0u);
  EXPECT_EQ(other->GetGuardStats().unprobed_gets, 0u);
  // Back to one DB: it samples after an epoch.
  EXPECT_EQ(ReadPresent(0, ProbeGate::kEpoch + 80), 0);
  EXPECT_LE(Unprobed(), 70u);
  EXPECT_GE(Unprobed(), 70u - (ProbeGate::kSampleEvery - 1));
}

// Three readers with adaptive probes, each through phases of present and
// absent keys: none misses a present key, and the gates both skipped
// probes and ruled keys out.
TEST_F(AdaptiveProbesTest, ReadersOnThreadsNeverMissAPresentKey) {
  Open(true);
  std::atomic<int> missed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      std::string v;
      for (int phase = 0; phase < 4; ++phase) {
        for (int i = 0; i < 1500; ++i) {
          const int k = (t * 7919 + phase * 1500 + i) % kKeys;
          if (phase % 2 == 0) {
            missed += db_->Get(ro_, KeyAt(k), &v).ok() ? 0 : 1;
          } else if (!db_->Get(ro_, AbsentKeyAt(k), &v).IsNotFound()) {
            ++missed;  // an absent key found: impossible
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(missed.load(), 0);
  EXPECT_GT(Unprobed(), 0u);
  EXPECT_GT(db_->RuledOut(), 0u);
  EXPECT_EQ(ExpectAllKeysFound(db_.get()), static_cast<size_t>(kKeys));
}

}  // namespace
}  // namespace test
}  // namespace sstfilter
