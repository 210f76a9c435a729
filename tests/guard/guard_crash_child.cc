// Child process of guarded_db_crash_test: writes to a GuardedDB under a
// TransactionDB (WrapStackableDB) at random until it is killed: committed,
// prepared-then-committed and rolled-back transactions, plain writes
// through the TransactionDB, the guard and the DB below it, a clean Close
// and reopen now and then. Each committed transaction also puts an "ack"
// key, and the child appends the key's number to ACK_FILE once Commit has
// returned: every number there must be found after the kill.
// Usage: guard_crash_child DB_PATH SEED ACK_FILE

#include <cstdio>
#include <cstdlib>
#include <random>

#include "guard_txn_util.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s DB_PATH SEED ACK_FILE\n", argv[0]);
    return 2;
  }
  using sstfilter::test::KeyAt;
  std::mt19937_64 rng(std::strtoull(argv[2], nullptr, 10));
  FILE* acks = std::fopen(argv[3], "a");
  if (acks == nullptr) return 2;
  const std::string ack_prefix = std::string("ack-") + argv[2] + "-";
  rocksdb::WriteOptions wo;
  uint64_t acked = 0;
  for (;;) {
    sstfilter::test::TxnStack stack(sstfilter::test::Layer::kWrapCommitted, argv[1],
                                    sstfilter::test::QuietGuard());
    if (!stack.status().ok()) {
      std::fprintf(stderr, "open: %s\n", stack.status().ToString().c_str());
      return 1;
    }
    rocksdb::Status s;
    for (int op = 0; op < 5000; ++op) {
      const std::string key = KeyAt(rng() % 3000);
      switch (rng() % 6) {
        case 0: s = stack.guard()->Put(wo, key, "v"); break;
        case 1: s = stack.top()->Merge(wo, stack.cf(), key, "m"); break;
        case 2: s = stack.root()->Delete(wo, stack.cf(), key); break;
        case 3: s = stack.top()->Delete(wo, stack.cf(), key); break;
        default: {
          std::unique_ptr<rocksdb::Transaction> txn(
              stack.Begin("crash-" + std::to_string(rng())));
          for (int i = 0; i < 4 && s.ok(); ++i) {
            const std::string k = KeyAt(rng() % 3000);
            s = rng() % 3 ? txn->Put(k, "t") : txn->Delete(k);
          }
          const bool commit = rng() % 4 != 0;
          if (s.ok() && commit) s = txn->Put(ack_prefix + std::to_string(acked), "ack");
          if (s.ok() && commit && rng() % 2) s = txn->Prepare();
          if (s.ok()) s = commit ? txn->Commit() : txn->Rollback();
          if (!s.ok()) txn->Rollback().PermitUncheckedError();
          if (s.ok() && commit) {
            std::fprintf(acks, "%llu\n", static_cast<unsigned long long>(acked++));
            std::fflush(acks);  // the kernel keeps it through a SIGKILL
          }
        }
      }
      if (!s.ok()) {
        std::fprintf(stderr, "write: %s\n", s.ToString().c_str());
        return 1;
      }
    }
    // A clean close now and then (the stack's destructor): the next open
    // loads the saved guard.
  }
}
