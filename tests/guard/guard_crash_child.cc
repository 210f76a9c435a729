// Child process of guarded_db_crash_test: writes through a GuardedDB at
// random (every write path, clean Close and reopen now and then) until it is
// killed. Usage: guard_crash_child DB_PATH SEED

#include <cstdio>
#include <cstdlib>
#include <random>

#include <rocksdb/write_batch.h>

#include "guard_test_util.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s DB_PATH SEED\n", argv[0]);
    return 2;
  }
  using sstfilter::test::KeyAt;
  std::mt19937_64 rng(std::strtoull(argv[2], nullptr, 10));
  const rocksdb::Options options = sstfilter::test::GuardTestOptions();
  rocksdb::WriteOptions wo;
  for (;;) {
    std::unique_ptr<sstfilter::GuardedDB> db;
    rocksdb::Status s =
        sstfilter::GuardedDB::Open(options, sstfilter::test::CheckedGuard(), argv[1], &db);
    if (!s.ok()) {
      std::fprintf(stderr, "open: %s\n", s.ToString().c_str());
      return 1;
    }
    std::printf("opened\n");
    std::fflush(stdout);
    for (int op = 0; op < 20000; ++op) {
      const std::string key = KeyAt(rng() % 3000);
      switch (rng() % 6) {
        case 0: s = db->Put(wo, key, "v"); break;
        case 1: s = db->Merge(wo, key, "m"); break;
        case 2: s = db->Delete(wo, key); break;
        case 3: s = db->SingleDelete(wo, key); break;
        case 4: {
          rocksdb::WriteBatch b;
          for (int i = 0; i < 8; ++i) {
            const std::string k = KeyAt(rng() % 3000);
            s = (rng() % 2) ? b.Put(k, "b") : b.Delete(k);
          }
          s = db->Write(wo, &b);
          break;
        }
        default: {
          const uint64_t start = rng() % 3000;
          s = db->DeleteRange(wo, db->DefaultColumnFamily(), KeyAt(start), KeyAt(start + 5));
        }
      }
      if (!s.ok()) {
        std::fprintf(stderr, "write: %s\n", s.ToString().c_str());
        return 1;
      }
    }
    s = db->Close();  // a clean close now and then: the next open loads
    if (!s.ok()) return 1;
  }
}
