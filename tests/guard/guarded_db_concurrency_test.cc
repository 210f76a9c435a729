// GuardedDB under concurrent writers and readers.
//
// tools/scripts/test.sh step 3 runs every case under TSan against RocksDB 9.7.4's
// static library built with TSan (tools/scripts/rocksdb_source.sh tsan), with no
// suppressions. With `--rocksdb none` it uses Debian's librocksdb, which is
// not instrumented, and runs only GuardConcurrencyTest (-R Concurrency):
// one writer and readers. Several writers (GuardRaceTest) make that library report
// races TSan cannot see through (its write group, the range-tombstone
// cache, filter readers freed by block-cache eviction), and no suppression
// limited to librocksdb fits them: the library has no frame pointers, so
// TSan's stacks lose its frames.
//
// Writers run random operations over every write path on three kinds of
// keys: stable keys (overwritten, never deleted: readers must always find
// them), owned keys (one writer each, checked against that writer's model
// after every operation), and contended keys (every writer races on them,
// Put against Delete of the same key included; checked when all stop).

#include <rocksdb/sst_file_writer.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <random>
#include <thread>

#include "guard_test_util.h"

namespace sstfilter {
namespace test {
namespace {

rocksdb::WriteOptions TestWriteOptions() { return rocksdb::WriteOptions(); }

constexpr int kWriters = 3;
constexpr int kOps = 600;
constexpr int kContended = 40;
constexpr int kStable = 50;
constexpr int kOwned = 60;

std::string Contended(uint64_t i) { return "c" + KeyAt(i % kContended); }
std::string Stable(uint64_t i) { return "s" + KeyAt(i % kStable); }
std::string Owned(int t, uint64_t i) { return "o" + std::to_string(t) + KeyAt(i % kOwned); }

struct Shared {
  GuardedDB* db;
  rocksdb::ColumnFamilyHandle* cf1;
  std::string dir;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> misses{0};
  std::atomic<uint64_t> failures{0};
};

// One random write on a contended or stable key, through any write path.
void RandomWrite(Shared* sh, std::mt19937_64& rng, int t, int op) {
  rocksdb::WriteOptions wo = TestWriteOptions();
  GuardedDB* db = sh->db;
  rocksdb::ColumnFamilyHandle* cf = (rng() % 2) ? sh->cf1 : db->DefaultColumnFamily();
  const std::string c = Contended(rng());
  const std::string s = Stable(rng());
  rocksdb::Status st;
  switch (rng() % 9) {
    case 0: st = db->Put(wo, cf, c, "p"); break;
    case 1: st = db->Merge(wo, cf, s, "m"); break;
    case 2: st = db->Delete(wo, cf, c); break;
    case 3: st = db->GetBaseDB()->Put(wo, cf, c, "base"); break;  // around the guard
    case 4: st = db->PutEntity(wo, cf, c, {{"a", "b"}}); break;
    case 5: {
      const uint64_t a = rng() % kContended, b = rng() % kContended;
      st = db->DeleteRange(wo, cf, Contended(std::min(a, b)), Contended(std::max(a, b)) + "~");
      break;
    }
    case 6: {
      rocksdb::WriteBatch b;
      for (int i = 0; i < 5; ++i) {
        rocksdb::ColumnFamilyHandle* bcf = (rng() % 2) ? sh->cf1 : db->DefaultColumnFamily();
        switch (rng() % 5) {
          case 0: st = b.Put(bcf, Contended(rng()), "b"); break;
          case 1: st = b.Delete(bcf, Contended(rng())); break;
          case 2: st = b.Merge(bcf, Stable(rng()), "bm"); break;
          // (No SingleDelete: RocksDB reports mixing it with Delete on a
          // key as corruption.)
          case 3: st = b.Delete(bcf, Stable(rng()) + "-gone"); break;
          default: st = b.Put(bcf, Stable(rng()), "bs");
        }
      }
      st = db->Write(wo, &b);
      break;
    }
    case 7: {
      if (rng() % 8 != 0) {
        st = db->Put(wo, cf, s, "s");
        break;
      }
      const std::string file = sh->dir + "/ingest-" + std::to_string(t) + "-" +
                               std::to_string(op) + ".sst";
      rocksdb::SstFileWriter w(rocksdb::EnvOptions(), GuardTestOptions());
      st = w.Open(file);
      const uint64_t first = rng() % kContended;
      std::map<std::string, int> sorted;
      for (int i = 0; i < 4; ++i) sorted[Contended(first + i)] = 1;
      for (const auto& kv : sorted) st = w.Put(kv.first, "i");
      st = w.Finish();
      // RocksDB answers TryAgain when a racing write lands in the memtable
      // over the file's range after its flush: as without a guard, which
      // no longer holds writes back during an ingestion.
      for (int tries = 0; st.ok() && tries < 20; ++tries) {
        st = db->IngestExternalFile(cf, {file}, rocksdb::IngestExternalFileOptions());
        if (!st.IsTryAgain()) break;
        st = rocksdb::Status::OK();
      }
      break;
    }
    default: st = db->Put(wo, cf, s, "s");
  }
  if (!st.ok() && sh->failures.fetch_add(1) < 5) {
    ADD_FAILURE() << st.ToString();
  }
}

void Writer(Shared* sh, int t) {
  std::mt19937_64 rng(1000 + t);
  std::map<std::string, bool> model;  // owned keys: present?
  rocksdb::WriteOptions wo = TestWriteOptions();
  for (int op = 0; op < kOps; ++op) {
    RandomWrite(sh, rng, t, op);
    // An owned key, by a random path, then checked against the model.
    const std::string k = Owned(t, rng());
    rocksdb::Status st;
    switch (rng() % 4) {
      case 0: st = sh->db->Put(wo, k, "o"); model[k] = true; break;
      case 1: st = sh->db->Delete(wo, k); model[k] = false; break;
      case 2: {
        rocksdb::WriteBatch b;
        const bool put = rng() % 2;
        st = put ? b.Put(k, "ob") : b.Delete(k);
        st = sh->db->Write(wo, &b);
        model[k] = put;
        break;
      }
      default: st = sh->db->Merge(wo, k, "om"); model[k] = true;
    }
    if (!st.ok()) sh->failures.fetch_add(1);
    for (const auto& [key, present] : model) {
      std::string v;
      const bool found = sh->db->Get(rocksdb::ReadOptions(), key, &v).ok();
      if (found != present) sh->misses.fetch_add(1);
    }
  }
}

void Reader(Shared* sh, int r) {
  std::mt19937_64 rng(2000 + r);
  while (!sh->stop.load()) {
    rocksdb::ColumnFamilyHandle* cf = (rng() % 2) ? sh->cf1 : sh->db->DefaultColumnFamily();
    const std::string s = Stable(rng());
    std::string v;
    if (!sh->db->Get(rocksdb::ReadOptions(), cf, s, &v).ok()) sh->misses.fetch_add(1);
    if (!sh->db->KeyMayExist(rocksdb::ReadOptions(), cf, s, &v)) sh->misses.fetch_add(1);
    const std::string c = Contended(rng());
    rocksdb::Slice keys[2] = {s, c};
    rocksdb::PinnableSlice values[2];
    rocksdb::Status statuses[2];
    sh->db->MultiGet(rocksdb::ReadOptions(), cf, 2, keys, values, statuses);
    if (!statuses[0].ok()) sh->misses.fetch_add(1);
  }
}

// Writers and readers race; with `represize`, another thread rebuilds both
// families' filters (GuardedDB::RepresizeGuard) again and again meanwhile,
// and every rebuild must succeed.
void RunRace(bool represize) {
  TempDir dir;
  rocksdb::Options options = GuardTestOptions();
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, options}, {"cf1", options}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  std::unique_ptr<GuardedDB> db;
  ASSERT_TRUE(GuardedDB::Open(options, QuietGuard(), dir.path(), families, &handles, &db).ok());
  Shared sh;
  sh.db = db.get();
  sh.cf1 = handles[1];
  sh.dir = dir.path();
  for (int i = 0; i < kStable; ++i) {
    for (auto* h : handles) ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), h, Stable(i), "s").ok());
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) threads.emplace_back(Writer, &sh, t);
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) readers.emplace_back(Reader, &sh, r);
  std::atomic<bool> writers_done{false};
  uint64_t rebuilds = 0;
  std::thread represizer([&] {
    while (represize && !writers_done.load()) {
      for (auto* h : handles) {
        const rocksdb::Status s = RepresizeAmidWriters(db.get(), h);
        EXPECT_TRUE(s.ok()) << s.ToString();
        ++rebuilds;
      }
    }
  });
  for (auto& t : threads) t.join();
  writers_done = true;
  represizer.join();
  if (represize) std::printf("rebuilds amid writers: %llu\n", static_cast<unsigned long long>(rebuilds));
  sh.stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(sh.misses.load(), 0u);
  EXPECT_EQ(sh.failures.load(), 0u);
  if (represize) {
    // One more with no writer: the rebuilt filter must hold every key.
    for (auto* h : handles) ASSERT_TRUE(db->RepresizeGuard(h).ok());
    EXPECT_EQ(db->GetGuardStats().represizes, rebuilds + handles.size());
  }
  const GuardStats stats = db->GetGuardStats();
  EXPECT_EQ(stats.guard_errors, 0u);
  EXPECT_EQ(stats.disabled_families, 0u);
  size_t held = 0;
  for (auto* h : handles) held += ExpectAllKeysFound(db.get(), h);
  EXPECT_GE(stats.keys, held);
  for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
  ASSERT_TRUE(db->Close().ok());
}

TEST(GuardRaceTest, ConcurrentWritersNeverHideAKey) { RunRace(/*represize=*/false); }

TEST(GuardRaceTest, RepresizeAmidWritersNeverHidesAKey) { RunRace(/*represize=*/true); }

// Writers racing on a few keys, through the guard and around it: the guard
// takes one entry per key, however many writers race on its first write.
TEST(GuardRaceTest, RacingWritersAddEachKeyOnce) {
  TempDir dir;
  std::unique_ptr<GuardedDB> db;
  ASSERT_TRUE(GuardedDB::Open(GuardTestOptions(), QuietGuard(), dir.path(), &db).ok());
  std::atomic<uint64_t> failures{0};
  constexpr int kKeys = 6;
  auto writer = [&](int t) {
    std::mt19937_64 rng(3000 + t);
    rocksdb::WriteOptions wo = TestWriteOptions();
    for (int op = 0; op < 1500; ++op) {
      const std::string k = KeyAt(rng() % kKeys);
      rocksdb::Status st;
      switch (rng() % 4) {
        case 0: st = db->Put(wo, k, "v"); break;
        case 1: st = db->GetBaseDB()->Merge(wo, db->DefaultColumnFamily(), k, "m"); break;
        case 2: st = db->Delete(wo, k); break;
        default: {
          rocksdb::WriteBatch b;
          st = (rng() % 2) ? b.Put(k, "b") : b.Delete(k);
          st = b.Put(KeyAt(rng() % kKeys), "b2");
          st = db->Write(wo, &b);
        }
      }
      if (!st.ok()) failures.fetch_add(1);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) threads.emplace_back(writer, t);
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0u);
  ExpectAllKeysFound(db.get());
  const GuardStats stats = db->GetGuardStats();
  EXPECT_EQ(stats.keys, static_cast<uint64_t>(kKeys));
  EXPECT_EQ(stats.guard_errors, 0u);
}

// The order itself: a key the DB already shows must be in the guard (added
// before it became visible), whichever path wrote it. Readers watch the
// key the writer is at.
TEST(GuardConcurrencyTest, KeysEnterTheGuardBeforeTheyAreVisible) {
  TempDir dir;
  std::unique_ptr<GuardedDB> db;
  ASSERT_TRUE(GuardedDB::Open(GuardTestOptions(), QuietGuard(), dir.path(), &db).ok());
  constexpr int kKeys = 3000;
  std::atomic<int> at{0};
  std::atomic<bool> done{false};
  std::atomic<uint64_t> bad{0}, checks{0};
  auto reader = [&] {
    std::string v;
    while (!done.load()) {
      const std::string k = KeyAt(at.load());
      if (db->GetBaseDB()->Get(rocksdb::ReadOptions(), k, &v).ok()) {
        checks.fetch_add(1);
        if (!db->Get(rocksdb::ReadOptions(), k, &v).ok()) bad.fetch_add(1);
      }
    }
  };
  std::thread r1(reader), r2(reader);
  // At least kKeys, and more until the readers have checked 50 keys the DB
  // showed: however slowly they are scheduled (under TSan, or on a loaded
  // machine), the test ends having raced them, not after a set time.
  int keys = 0;
  for (; keys < kKeys || checks.load() < 50; ++keys) {
    at.store(keys);
    rocksdb::DB* path = keys % 2 ? db->GetBaseDB() : db.get();
    ASSERT_TRUE(path->Put(rocksdb::WriteOptions(), KeyAt(keys), "v").ok());
    std::this_thread::yield();
  }
  done.store(true);
  r1.join();
  r2.join();
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_EQ(ExpectAllKeysFound(db.get()), static_cast<size_t>(keys));
}

}  // namespace
}  // namespace test
}  // namespace sstfilter
