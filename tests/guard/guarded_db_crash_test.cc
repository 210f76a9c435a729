// A child process writing to a GuardedDB under a TransactionDB is killed
// with SIGKILL at random points; after every kill the DB is reopened the
// same way (guard loaded or rebuilt), every key it holds must be found
// through the guard, and so must every transaction's commit the child saw
// acknowledged.

#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <thread>

#include <fstream>

#include "guard_txn_util.h"

extern char** environ;

namespace sstfilter {
namespace test {
namespace {

// Waits until the child has acknowledged a commit (its ack file is not
// empty): an event, not a time, so a loaded machine only makes the wait
// longer. False if the child exited first (it is reaped then; *status
// says how).
bool WaitForFirstAck(pid_t pid, const std::string& ack_file, int* status) {
  for (;;) {
    struct stat st;
    if (stat(ack_file.c_str(), &st) == 0 && st.st_size > 0) return true;
    if (waitpid(pid, status, WNOHANG) == pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

TEST(GuardedDBCrashTest, EveryKeyFoundAfterSigkill) {
  TempDir dir;
  std::mt19937_64 rng(20261123);
  for (int round = 0; round < 8; ++round) {
    const std::string seed = std::to_string(rng());
    const std::string ack_file = dir.path() + "-acks-" + seed;
    const char* argv[] = {SSTFILTER_GUARD_CRASH_CHILD, dir.path().c_str(), seed.c_str(),
                          ack_file.c_str(), nullptr};
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, argv[0], nullptr, nullptr, const_cast<char**>(argv), environ), 0);
    // The kill lands at a random point after the first commit: in a
    // transaction, a flush, a clean close or the next open.
    int status = 0;
    ASSERT_TRUE(WaitForFirstAck(pid, ack_file, &status))
        << "the child exited with status " << status << " before its first commit";
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 1500));
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the child failed before it was killed";
    // A guard file is left only by a kill after the child's Close and
    // before its next Open consumed the file. It loads, unless that Open
    // had already written an SST the file does not list (its WAL
    // recovery's flush, or a compaction it started): then the guard is
    // rebuilt, as always without a file. Either way every key is found.
    const bool saved = access((dir.path() + "/SSTFILTER-GUARD").c_str(), F_OK) == 0;
    auto stack = std::make_unique<TxnStack>(Layer::kWrapCommitted, dir.path(), QuietGuard());
    ASSERT_TRUE(stack->status().ok()) << stack->status().ToString();
    GuardedDB* db = stack->guard();
    const GuardStats s = db->GetGuardStats();
    EXPECT_NE(s.loaded, s.rebuilt) << "round " << round;
    if (!saved) {
      EXPECT_TRUE(s.rebuilt) << "round " << round;
    }
    if (saved && s.rebuilt) {
      EXPECT_NE(s.rebuild_reason.find("another session"), std::string::npos)
          << "round " << round << ": " << s.rebuild_reason;
    }
    ExpectAllKeysFound(db);
    // Every acknowledged commit, through the guard and the TransactionDB.
    std::ifstream in(ack_file);
    uint64_t n = 0, acked = 0;
    std::string v;
    for (; in >> n; ++acked) {
      const std::string key = "ack-" + seed + "-" + std::to_string(n);
      EXPECT_TRUE(db->Get(rocksdb::ReadOptions(), key, &v).ok()) << "round " << round << " " << key;
      EXPECT_TRUE(stack->top()->Get(rocksdb::ReadOptions(), key, &v).ok()) << key;
    }
    EXPECT_GT(acked, 0u) << "round " << round << ": no transaction committed before the kill";
    std::remove(ack_file.c_str());
    // Every third round reopens once more from the guard this close saves.
    stack.reset();
    if (round % 3 == 2) {
      stack = std::make_unique<TxnStack>(Layer::kWrapCommitted, dir.path(), QuietGuard());
      ASSERT_TRUE(stack->status().ok());
      EXPECT_TRUE(stack->guard()->GetGuardStats().loaded);
      ExpectAllKeysFound(stack->guard());
      stack.reset();
    }
  }
}

}  // namespace
}  // namespace test
}  // namespace sstfilter
