// Readers share filter readers without locks while flushes and compactions
// build new filters: several threads Get/MultiGet keys known to be written
// while a writer keeps adding keys, flushing and compacting. Run under
// ThreadSanitizer in CI.

#include <rocksdb/filter_policy.h>
#include <sstfilter/sstfilter.h>

#include <atomic>
#include <thread>
#include <vector>

#include "rocksdb_adapter/db_open.h"
#include "rocksdb_test_util.h"

namespace sstfilter {
namespace {

using test::AbsentKeyAt;
using test::KeyAt;

uint64_t SplitMixNext(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  return z ^ (z >> 27);
}

class ConcurrencyTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ConcurrencyTest, ReadersWhileFlushingAndCompacting) {
  test::TempDir dir;
  rocksdb::BlockBasedTableOptions table;
  std::shared_ptr<const rocksdb::FilterPolicy> policy;
  ASSERT_TRUE(NewFilterPolicy(GetParam(), 12, &policy).ok());
  table.filter_policy = policy;
  table.block_cache = rocksdb::NewLRUCache(1 << 20);
  table.cache_index_and_filter_blocks = true;  // readers made and dropped concurrently
  rocksdb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 256 << 10;  // frequent flushes
  options.level0_file_num_compaction_trigger = 2;
  options.max_background_jobs = 2;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  std::unique_ptr<rocksdb::DB> raw;
  ASSERT_TRUE(sstfilter::OpenDB(options, dir.path(), &raw).ok());
  std::unique_ptr<rocksdb::DB> db = std::move(raw);

  constexpr uint64_t kTotal = 120000;
  std::atomic<uint64_t> written{0};  // keys [0, written) are durable in the DB
  std::atomic<bool> done{false};
  std::atomic<uint64_t> errors{0}, reads{0};

  std::thread writer([&] {
    for (uint64_t i = 0; i < kTotal; ++i) {
      if (!db->Put({}, KeyAt(i), "v").ok()) ++errors;
      written.store(i + 1, std::memory_order_release);
      if (i % 20000 == 19999 && !db->CompactRange({}, nullptr, nullptr).ok()) ++errors;
    }
    // The readers have done 1000 reads, however slowly they were
    // scheduled: an event, not a time.
    while (reads.load() < 1000) std::this_thread::yield();
    done = true;
  });
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&, t] {
      uint64_t state = t + 1;
      std::string value;
      while (!done) {
        const uint64_t upto = written.load(std::memory_order_acquire);
        if (upto == 0) continue;
        const uint64_t k = SplitMixNext(&state) % upto;
        if (t == 0) {  // batched lookups through MultiGet
          std::string keys_s[8];
          rocksdb::Slice keys[8];
          for (int j = 0; j < 8; ++j) {
            keys_s[j] = KeyAt((k + j * 997) % upto);
            keys[j] = keys_s[j];
          }
          rocksdb::PinnableSlice values[8];
          rocksdb::Status statuses[8];
          db->MultiGet({}, db->DefaultColumnFamily(), 8, keys, values, statuses);
          for (const auto& s : statuses) errors += !s.ok();
        } else {
          errors += !db->Get({}, KeyAt(k), &value).ok();
          errors += !db->Get({}, AbsentKeyAt(k), &value).IsNotFound();
        }
        ++reads;
      }
    });
  }
  writer.join();
  for (auto& r : readers) r.join();
  EXPECT_EQ(errors.load(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Policies, ConcurrencyTest,
                         ::testing::Values("bloom", "cuckoo"));

}  // namespace
}  // namespace sstfilter
