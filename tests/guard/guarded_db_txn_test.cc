// GuardedDB under transactions: a model test of random transactions on
// three threads, for every way RocksDB offers them over a guard:
//   - TransactionDB::WrapStackableDB(guard), WRITE_COMMITTED;
//   - TransactionDB::Open under the guard (GuardedDB::Open's BaseOpener),
//     WRITE_COMMITTED, WRITE_PREPARED and WRITE_UNPREPARED;
//   - OptimisticTransactionDB::Open under the guard.
// Each thread owns its keys and keeps a model of them: commits, rollbacks,
// savepoints, explicit two-phase Prepare, Put/Delete/SingleDelete/Merge
// inside transactions, and plain writes through the TransactionDB and the
// DB below the guard. After every operation each owned key is read through
// the guard, the TransactionDB and the root DB, and must agree with the
// model: the guard may never rule out a key the DB holds. With
// `represize`, another thread rebuilds the guard's filter over and over
// meanwhile (a WRITE_PREPARED key prepared before a rebuild's snapshot and
// committed after it must survive the swap).

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <random>
#include <thread>
#include <tuple>

#include "guard_txn_util.h"

extern char** environ;

namespace sstfilter {
namespace test {
namespace {

constexpr int kThreads = 3;
constexpr int kTxns = 250;
constexpr int kOwned = 40;

struct Counters {
  std::atomic<uint64_t> misses{0};     // the guard ruled out a key the model holds
  std::atomic<uint64_t> disagree{0};   // a read that disagrees with the model
  std::atomic<uint64_t> failures{0};   // an operation that should have succeeded
  std::atomic<uint64_t> commits{0}, rollbacks{0}, prepared{0};
};

void Fail(Counters* c, const rocksdb::Status& s, const char* what) {
  if (c->failures.fetch_add(1) < 5) ADD_FAILURE() << what << ": " << s.ToString();
}

// Reads `key` three ways and compares with the model.
void Check(TxnStack* stack, Counters* c, const std::string& key, bool present) {
  rocksdb::ReadOptions ro;
  std::string v;
  const bool guard = stack->guard()->Get(ro, key, &v).ok();
  const bool top = stack->top()->Get(ro, stack->cf(), key, &v).ok();
  const bool root = stack->root()->Get(ro, stack->cf(), key, &v).ok();
  if (present && !guard) c->misses.fetch_add(1);
  if ((guard != present || top != present) && c->disagree.fetch_add(1) < 3) {
    ADD_FAILURE() << key << ": model " << present << ", guard " << guard << ", transaction DB "
                  << top << ", root " << root;
  }
  // The root DB of WRITE_PREPARED/UNPREPARED is no reader's (it shows
  // uncommitted data, and may lag a commit): checked for the others only.
  if (stack->plain_root_writes() && root != present && c->disagree.fetch_add(1) < 3) {
    ADD_FAILURE() << key << ": the root DB lacks it";
  }
}

void Worker(TxnStack* stack, Counters* c, int t) {
  std::mt19937_64 rng(7000 + t);
  const std::string prefix = "t" + std::to_string(t) + "-";
  std::map<std::string, bool> model;
  for (int i = 0; i < kOwned; ++i) model[prefix + KeyAt(i)] = false;
  auto key = [&] { return prefix + KeyAt(rng() % kOwned); };
  uint64_t single_next = 0;  // "sd" keys: put once, then single-deleted once
  for (int n = 0; n < kTxns; ++n) {
    if (rng() % 5 == 0) {
      // A plain write, around the transactions: through the TransactionDB
      // or the DB below the guard (not with WRITE_PREPARED/UNPREPARED, whose
      // DB takes writes only through the TransactionDB).
      const std::string k = key();
      rocksdb::DB* db = rng() % 2 || !stack->plain_root_writes() ? stack->top() : stack->root();
      const bool put = rng() % 3 != 0;
      const rocksdb::Status s = put ? db->Put(rocksdb::WriteOptions(), stack->cf(), k, "plain")
                                    : db->Delete(rocksdb::WriteOptions(), stack->cf(), k);
      if (!s.ok()) Fail(c, s, "plain write");
      else model[k] = put;
      for (const auto& [mk, present] : model) Check(stack, c, mk, present);
      continue;
    }
    std::unique_ptr<rocksdb::Transaction> txn(
        stack->Begin("txn-" + std::to_string(t) + "-" + std::to_string(n)));
    std::map<std::string, bool> pending = model, saved;
    bool has_save = false;
    std::string sd_put, sd_delete;
    const int ops = 1 + static_cast<int>(rng() % 6);
    for (int op = 0; op < ops; ++op) {
      const std::string k = key();
      rocksdb::Status s;
      switch (rng() % 6) {
        case 0: case 1: s = txn->Put(k, "p"); pending[k] = true; break;
        case 2: s = txn->Merge(k, "m"); pending[k] = true; break;
        case 3: s = txn->Delete(k); pending[k] = false; break;
        case 4:
          if (!has_save) {
            txn->SetSavePoint();
            saved = pending;
            has_save = true;
          } else {
            s = txn->RollbackToSavePoint();
            pending = saved;
            has_save = false;
          }
          break;
        default:
          // SingleDelete as documented: of a key put once, in an earlier
          // committed transaction.
          if (single_next > 0 && sd_delete.empty()) {
            sd_delete = prefix + "sd" + std::to_string(single_next - 1);
            if (!model.count(sd_delete) || !model[sd_delete]) sd_delete.clear();
            else { s = txn->SingleDelete(sd_delete); pending[sd_delete] = false; }
          } else if (sd_put.empty()) {
            sd_put = prefix + "sd" + std::to_string(single_next);
            s = txn->Put(sd_put, "once");
            pending[sd_put] = true;
          }
      }
      if (!s.ok()) Fail(c, s, "transaction write");
    }
    const bool commit = rng() % 4 != 0;
    rocksdb::Status s;
    if (commit && !stack->optimistic() && rng() % 2) {
      s = txn->Prepare();  // two-phase: WRITE_PREPARED inserts here
      if (!s.ok()) Fail(c, s, "prepare");
      c->prepared.fetch_add(1);
      // Keys prepared but not committed are not visible: check them now.
      for (const auto& [mk, present] : model) Check(stack, c, mk, present);
    }
    s = commit ? txn->Commit() : txn->Rollback();
    if (!s.ok()) {
      Fail(c, s, commit ? "commit" : "rollback");
      continue;
    }
    if (commit) {
      model = pending;
      if (!sd_put.empty()) ++single_next;
      c->commits.fetch_add(1);
    } else {
      c->rollbacks.fetch_add(1);
    }
    for (const auto& [mk, present] : model) Check(stack, c, mk, present);
  }
}

void RunModel(Layer layer, bool represize) {
  TempDir dir;
  GuardOptions g = QuietGuard();
  g.min_planned_keys = 1024;  // small filters: growth and re-presizes happen
  TxnStack stack(layer, dir.path(), g);
  ASSERT_TRUE(stack.status().ok()) << LayerName(layer) << ": " << stack.status().ToString();
  Counters c;
  std::atomic<bool> done{false};
  uint64_t rebuilds = 0;
  // Over a base that stands over another DB (BaseOpener) the guard refuses
  // re-presizes: prepared keys are in the memtable before a scan can see
  // them.
  const bool can_represize = stack.represizes();
  if (represize && !can_represize) {
    const rocksdb::Status s = stack.guard()->RepresizeGuard(stack.cf());
    EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
    EXPECT_NE(s.ToString().find("a DB under the guard that stands over another"),
              std::string::npos);
    represize = false;
  }
  // Re-presizes run while the workers do, and at least two of them: on a
  // loaded machine the workers may finish first, and the loop then goes on
  // until the second (an event, not a time).
  std::thread represizer([&] {
    while (represize && (!done.load() || rebuilds < 2)) {
      const rocksdb::Status s = RepresizeAmidWriters(stack.guard(), stack.cf());
      EXPECT_TRUE(s.ok()) << s.ToString();
      ++rebuilds;
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(Worker, &stack, &c, t);
  for (auto& t : threads) t.join();
  done = true;
  represizer.join();
  EXPECT_EQ(c.misses.load(), 0u) << LayerName(layer);
  EXPECT_EQ(c.disagree.load(), 0u) << LayerName(layer);
  EXPECT_EQ(c.failures.load(), 0u) << LayerName(layer);
  // Enough of every kind happened for the test to mean something.
  EXPECT_GE(c.commits.load(), kThreads * kTxns / 2u);
  EXPECT_GE(c.rollbacks.load(), kThreads * kTxns / 10u);
  if (!stack.optimistic()) {
    EXPECT_GE(c.prepared.load(), kThreads * kTxns / 5u);
  }
  const GuardStats stats = stack.guard()->GetGuardStats();
  EXPECT_EQ(stats.guard_errors, 0u);
  EXPECT_EQ(stats.disabled_families, 0u);
  EXPECT_GT(ExpectAllKeysFound(stack.guard(), stack.cf()), 0u);
  std::printf("%s%s: %llu commits, %llu rollbacks, %llu prepared, %llu rebuilds\n",
              LayerName(layer), represize ? " + re-presize" : "",
              static_cast<unsigned long long>(c.commits.load()),
              static_cast<unsigned long long>(c.rollbacks.load()),
              static_cast<unsigned long long>(c.prepared.load()),
              static_cast<unsigned long long>(rebuilds));
}

class GuardTxnTest : public ::testing::TestWithParam<Layer> {};

TEST_P(GuardTxnTest, RandomTransactionsNeverHideAKey) { RunModel(GetParam(), false); }

TEST_P(GuardTxnTest, RandomTransactionsAmidRepresizes) { RunModel(GetParam(), true); }

INSTANTIATE_TEST_SUITE_P(Layers, GuardTxnTest,
                         ::testing::Values(Layer::kWrapCommitted, Layer::kOpenCommitted,
                                           Layer::kOpenPrepared, Layer::kOpenUnprepared,
                                           Layer::kOptimistic),
                         [](const ::testing::TestParamInfo<Layer>& info) {
                           return std::string(LayerName(info.param));
                         });

// A transaction prepared before the DB closes (cleanly, or by a crash) and
// committed after it reopens. WRITE_PREPARED and WRITE_UNPREPARED replay its
// keys into the memtable during recovery, before any hook is attached, and
// a read through the TransactionDB shows them only once they commit
// (GuardedDB::Open). After a clean close the guard is loaded, after a
// crash rebuilt. (RocksDB's own checks
// forbid closing WRITE_PREPARED/UNPREPARED cleanly with a transaction
// prepared: those crash only.)
enum class Close { kClean, kCrash };

void PrepareAndLeave(Layer layer, const std::string& path, bool crash) {
  auto stack = std::make_unique<TxnStack>(layer, path, QuietGuard());
  ASSERT_TRUE(stack->status().ok()) << stack->status().ToString();
  std::unique_ptr<rocksdb::Transaction> txn(stack->Begin("recovered"));
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(txn->Put("prepared" + KeyAt(i), "v").ok());
  ASSERT_TRUE(txn->Prepare().ok());
  ASSERT_TRUE(stack->top()->Put(rocksdb::WriteOptions(), stack->cf(), "plain", "v").ok());
  if (crash) _exit(0);  // the WAL is in the kernel's hands: as a kill leaves it
  txn.reset();          // the prepared transaction is left to recovery
}

// The child GuardTxnRecoveryTest spawns for a crash: SSTFILTER_TXN_CHILD
// is "<layer number>:<db path>".
TEST(GuardTxnChild, PrepareThenExit) {
  const char* spec = std::getenv("SSTFILTER_TXN_CHILD");
  if (spec == nullptr) GTEST_SKIP() << "the child of GuardTxnRecoveryTest's crash cases";
  const std::string s(spec);
  PrepareAndLeave(static_cast<Layer>(std::stoi(s)), s.substr(s.find(':') + 1), /*crash=*/true);
}

class GuardTxnRecoveryTest : public ::testing::TestWithParam<std::tuple<Layer, Close>> {};

TEST_P(GuardTxnRecoveryTest, PreparedBeforeCloseCommittedAfterReopen) {
  const Layer layer = std::get<0>(GetParam());
  const bool crash = std::get<1>(GetParam()) == Close::kCrash;
  TempDir dir;
  if (crash) {
    const std::string env = "SSTFILTER_TXN_CHILD=" + std::to_string(static_cast<int>(layer)) +
                            ":" + dir.path();
    std::vector<char*> envp;
    for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
    envp.push_back(const_cast<char*>(env.c_str()));
    envp.push_back(nullptr);
    const char* argv[] = {"/proc/self/exe", "--gtest_filter=GuardTxnChild.PrepareThenExit",
                          nullptr};
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, argv[0], nullptr, nullptr, const_cast<char**>(argv),
                          envp.data()),
              0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child failed";
  } else {
    PrepareAndLeave(layer, dir.path(), /*crash=*/false);
  }
  TxnStack stack(layer, dir.path(), QuietGuard());
  ASSERT_TRUE(stack.status().ok()) << stack.status().ToString();
  EXPECT_EQ(stack.guard()->GetGuardStats().rebuilt, crash);
  auto* txn_db = static_cast<rocksdb::TransactionDB*>(stack.top());
  std::vector<rocksdb::Transaction*> prepared;
  txn_db->GetAllPreparedTransactions(&prepared);
  ASSERT_EQ(prepared.size(), 1u);
  std::string v;
  EXPECT_TRUE(stack.guard()->Get(rocksdb::ReadOptions(), "prepared" + KeyAt(0), &v).IsNotFound());
  ASSERT_TRUE(prepared[0]->Commit().ok());
  delete prepared[0];
  int found = 0;
  for (int i = 0; i < 100; ++i) {
    found += stack.guard()->Get(rocksdb::ReadOptions(), "prepared" + KeyAt(i), &v).ok();
  }
  EXPECT_EQ(found, 100) << LayerName(layer);
  EXPECT_EQ(ExpectAllKeysFound(stack.guard(), stack.cf()), 101u);
}

INSTANTIATE_TEST_SUITE_P(
    Layers, GuardTxnRecoveryTest,
    ::testing::Values(std::make_tuple(Layer::kWrapCommitted, Close::kClean),
                      std::make_tuple(Layer::kWrapCommitted, Close::kCrash),
                      std::make_tuple(Layer::kOpenCommitted, Close::kClean),
                      std::make_tuple(Layer::kOpenCommitted, Close::kCrash),
                      std::make_tuple(Layer::kOpenPrepared, Close::kCrash),
                      std::make_tuple(Layer::kOpenUnprepared, Close::kCrash)),
    [](const ::testing::TestParamInfo<std::tuple<Layer, Close>>& info) {
      return std::string(LayerName(std::get<0>(info.param))) +
             (std::get<1>(info.param) == Close::kCrash ? "Crashed" : "Closed");
    });

// What the issue was: keys committed through a TransactionDB over the guard
// read back NotFound through it while open.
TEST(GuardTxnTest, CommitsThroughAWrappedGuardAreFound) {
  TempDir dir;
  TxnStack stack(Layer::kWrapCommitted, dir.path(), EveryGetProbes());  // counts ruled out
  ASSERT_TRUE(stack.status().ok()) << stack.status().ToString();
  auto* txn_db = static_cast<rocksdb::TransactionDB*>(stack.top());
  for (int i = 0; i < 200; ++i) {
    std::unique_ptr<rocksdb::Transaction> txn(txn_db->BeginTransaction(rocksdb::WriteOptions()));
    ASSERT_TRUE(txn->Put(KeyAt(i), "v").ok());
    ASSERT_TRUE(txn->Commit().ok());
    ASSERT_TRUE(txn_db->Put(rocksdb::WriteOptions(), AbsentKeyAt(i), "v").ok());
  }
  std::string v;
  int found = 0;
  for (int i = 0; i < 200; ++i) {
    found += txn_db->Get(rocksdb::ReadOptions(), KeyAt(i), &v).ok();
    found += txn_db->Get(rocksdb::ReadOptions(), AbsentKeyAt(i), &v).ok();
  }
  EXPECT_EQ(found, 400);
  // Reads through the TransactionDB are guarded: absent keys never reach
  // the DB.
  const uint64_t before = stack.guard()->RuledOut();
  for (int i = 0; i < 1000; ++i) {
    EXPECT_TRUE(txn_db->Get(rocksdb::ReadOptions(), "absent" + KeyAt(i), &v).IsNotFound());
  }
  EXPECT_GE(stack.guard()->RuledOut(), before + 990);
}

}  // namespace
}  // namespace test
}  // namespace sstfilter
