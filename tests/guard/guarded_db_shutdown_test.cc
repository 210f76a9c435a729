// GuardedDB's shutdown: Close() and the destructor return after unlogged
// (disableWAL) writes, keep what a plain RocksDB close keeps, and leave a
// guard the next Open can trust. A close that waits for work it has
// stopped never returns: each test here then fails by its CTest timeout.

#include <memory>
#include <string>

#include "guard_test_util.h"
#include "guard_txn_util.h"

namespace sstfilter {
namespace test {
namespace {

constexpr int kKeys = 3000;  // a few flushes' worth at GuardTestOptions' buffer

rocksdb::WriteOptions Unlogged() {
  rocksdb::WriteOptions w;
  w.disableWAL = true;
  return w;
}

class GuardedDBShutdownTest : public ::testing::Test {
 protected:
  std::unique_ptr<GuardedDB> Open(const GuardOptions& g = EveryGetProbes()) {
    std::unique_ptr<GuardedDB> db;
    const rocksdb::Status s = GuardedDB::Open(options_, g, dir_.path(), &db);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return db;
  }
  static void PutKeys(GuardedDB* db, int from, int to, const rocksdb::WriteOptions& w) {
    for (int i = from; i < to; ++i) ASSERT_TRUE(db->Put(w, KeyAt(i), "v").ok());
  }
  // Reopens through the guard: every key the DB holds is found, and it
  // holds `expected` keys. Returns what Open decided.
  GuardStats ReopenExpecting(size_t expected) {
    auto db = Open();
    EXPECT_EQ(ExpectAllKeysFound(db.get()), expected);
    const GuardStats s = db->GetGuardStats();
    EXPECT_TRUE(db->Close().ok());
    return s;
  }

  TempDir dir_;
  rocksdb::Options options_ = GuardTestOptions();
};

TEST_F(GuardedDBShutdownTest, CloseFlushesUnloggedWrites) {
  auto db = Open();
  PutKeys(db.get(), 0, kKeys, Unlogged());
  ASSERT_TRUE(db->Close().ok());
  db.reset();
  // The close's flush is this session's own SST: the saved guard still
  // describes the DB, and loads.
  const GuardStats s = ReopenExpecting(kKeys);
  EXPECT_TRUE(s.loaded);
  EXPECT_FALSE(s.rebuilt) << s.rebuild_reason;
}

TEST_F(GuardedDBShutdownTest, TheDestructorFlushesUnloggedWrites) {
  {
    auto db = Open();
    PutKeys(db.get(), 0, kKeys, Unlogged());
  }
  const GuardStats s = ReopenExpecting(kKeys);
  EXPECT_TRUE(s.loaded);
}

TEST_F(GuardedDBShutdownTest, CloseLiftsTheUsersPauses) {
  auto db = Open();
  PutKeys(db.get(), 0, kKeys / 2, rocksdb::WriteOptions());
  ASSERT_TRUE(db->PauseBackgroundWork().ok());
  ASSERT_TRUE(db->PauseBackgroundWork().ok());
  ASSERT_TRUE(db->ContinueBackgroundWork().ok());  // one pause left
  PutKeys(db.get(), kKeys / 2, kKeys, Unlogged());
  ASSERT_TRUE(db->Close().ok());
  db.reset();
  EXPECT_TRUE(ReopenExpecting(kKeys).loaded);
}

TEST_F(GuardedDBShutdownTest, CloseStopsABackgroundRepresize) {
  // A re-presize each time the filter doubles past 256 keys, so several
  // start amid the writes; whichever runs at Close is stopped.
  GuardOptions g = EveryGetProbes();
  g.min_planned_keys = 256;
  auto db = Open(g);
  PutKeys(db.get(), 0, 4 * kKeys, Unlogged());
  ASSERT_TRUE(db->Close().ok());
  db.reset();
  ReopenExpecting(4 * kKeys);
}

TEST_F(GuardedDBShutdownTest, AvoidFlushDuringShutdownDropsUnloggedWritesSafely) {
  options_.avoid_flush_during_shutdown = true;
  auto db = Open();
  PutKeys(db.get(), 0, kKeys, rocksdb::WriteOptions());
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  // Kept in the memtable only: RocksDB drops them at close, as it would
  // without the guard.
  PutKeys(db.get(), kKeys, kKeys + 100, Unlogged());
  ASSERT_TRUE(db->Close().ok());
  db.reset();
  // Whether the next Open loads the guard (extra entries: false positives
  // only) or rebuilds it, every key the DB kept is found.
  ReopenExpecting(kKeys);
}

TEST_F(GuardedDBShutdownTest, TransactionDBsFlushUnloggedWritesAtClose) {
  // Over the guard (WrapStackableDB) and under it (the BaseOpener form):
  // either way the DB closes through the guard's destructor.
  for (Layer layer : {Layer::kWrapCommitted, Layer::kOpenCommitted}) {
    SCOPED_TRACE(LayerName(layer));
    TempDir dir;
    {
      TxnStack stack(layer, dir.path(), EveryGetProbes());
      ASSERT_TRUE(stack.status().ok()) << stack.status().ToString();
      for (int i = 0; i < kKeys; ++i) {
        ASSERT_TRUE(stack.top()->Put(Unlogged(), KeyAt(i), "v").ok());
      }
    }
    std::unique_ptr<GuardedDB> db;
    ASSERT_TRUE(GuardedDB::Open(GuardTestOptions(), EveryGetProbes(), dir.path(), &db).ok());
    EXPECT_EQ(ExpectAllKeysFound(db.get()), static_cast<size_t>(kKeys));
  }
}

}  // namespace
}  // namespace test
}  // namespace sstfilter
