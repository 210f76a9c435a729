// range_bench: short scans (Seek, then up to 16 Next within an upper bound)
// on a multi-level DB read with direct I/O through a block cache far
// smaller than the data, half of them on empty ranges.
//
//   range_bench [--db=DIR] [--keys=2000000] [--scans=20000] [--rounds=5]
//
// Keys are "user" + 12 digits, ids drawn at random below 10^12. Every scan
// stays within one run of 1,000 ids so that RocksDB's prefix Bloom filter
// (prefix "user" + 9 digits, prefix_same_as_start) answers the same scans.
// Configurations, on one DB written once with both the range filter's
// collector and the prefix Bloom filter:
//   none     plain iterators
//   prefix   RocksDB's prefix Bloom filter, prefix_same_as_start
//   range    sstfilter's range filter through RangeScan
// Columns: scans/s (median of --rounds), and blocks read per scan (index,
// filter and data blocks missed in the block cache), each with its ratio to
// `none` measured in the same round.

#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <sstfilter/range_filter.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "range/range_test_util.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kIdSpace = 1000000000000ULL;  // 12 digits
constexpr uint64_t kRun = 1000;                  // ids per prefix

struct Flags {
  std::string db = "/var/tmp/sstfilter_range_bench";
  uint64_t keys = 2000000, scans = 20000;
  int rounds = 5;
};

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&](const char* name) -> const char* {
      return a.rfind(name, 0) == 0 ? a.c_str() + std::strlen(name) : nullptr;
    };
    if (const char* v = value("--db=")) {
      f.db = v;
    } else if (const char* v2 = value("--keys=")) {
      f.keys = std::strtoull(v2, nullptr, 10);
    } else if (const char* v3 = value("--scans=")) {
      f.scans = std::strtoull(v3, nullptr, 10);
    } else if (const char* v4 = value("--rounds=")) {
      f.rounds = std::atoi(v4);
    } else {
      std::fprintf(stderr, "usage: range_bench [--db=DIR] [--keys=N] [--scans=N] [--rounds=N]\n");
      std::exit(2);
    }
  }
  return f;
}

uint64_t Rand(uint64_t* state) { return sstfilter::test::SplitMix(state); }
// "user" + 12 digits.
std::string Key(uint64_t id) {
  return sstfilter::test::Key(sstfilter::test::Shape::kUserDecimal, id);
}

rocksdb::Options DbOptions(const std::shared_ptr<rocksdb::Statistics>& stats) {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.use_direct_reads = true;
  o.use_direct_io_for_flush_and_compaction = true;
  o.write_buffer_size = 4 << 20;
  o.target_file_size_base = 2 << 20;
  o.max_bytes_for_level_base = 4 << 20;
  o.max_bytes_for_level_multiplier = 5;  // L1 4 MiB .. L4 500 MiB: 2M keys span 4 levels
  o.compression = rocksdb::kNoCompression;
  o.level0_file_num_compaction_trigger = 4;
  o.statistics = stats;
  o.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(13));  // "user" + 9 digits
  o.table_properties_collector_factories.push_back(sstfilter::NewRangeFilterCollectorFactory());
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  t.whole_key_filtering = true;
  t.cache_index_and_filter_blocks = true;
  t.block_cache = rocksdb::NewLRUCache(8 << 20);
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  return o;
}

void WaitForCompactions(rocksdb::DB* db) {
  for (;;) {
    uint64_t pending = 0, running = 0;
    db->GetIntProperty("rocksdb.compaction-pending", &pending);
    db->GetIntProperty("rocksdb.num-running-compactions", &running);
    if (pending == 0 && running == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

struct Scan {
  uint64_t lo, length;
};

enum Config { kNone, kPrefix, kRange };
const char* const kConfigNames[] = {"none", "prefix Bloom", "range filter"};

struct Measured {
  double scans_per_s = 0, blocks_per_scan = 0;
  uint64_t rows = 0;
};

uint64_t BlocksRead(const rocksdb::Statistics& s) {
  return s.getTickerCount(rocksdb::BLOCK_CACHE_INDEX_MISS) +
         s.getTickerCount(rocksdb::BLOCK_CACHE_FILTER_MISS) +
         s.getTickerCount(rocksdb::BLOCK_CACHE_DATA_MISS);
}

Measured Run(rocksdb::DB* db, rocksdb::Statistics* stats, const std::vector<Scan>& scans,
             Config config) {
  Measured m;
  const uint64_t blocks_before = BlocksRead(*stats);
  const auto start = Clock::now();
  for (const Scan& s : scans) {
    const std::string lower = Key(s.lo), upper = Key(s.lo + s.length);
    rocksdb::ReadOptions ro;
    std::unique_ptr<sstfilter::RangeScan> filtered;
    std::unique_ptr<rocksdb::Iterator> plain;
    const rocksdb::Slice upper_slice(upper);
    rocksdb::Iterator* it;
    if (config == kRange) {
      ro.total_order_seek = true;
      filtered = std::make_unique<sstfilter::RangeScan>(db, ro, db->DefaultColumnFamily(), lower,
                                                         upper);
      it = filtered->get();
    } else {
      ro.iterate_upper_bound = &upper_slice;
      if (config == kPrefix) {
        ro.prefix_same_as_start = true;
      } else {
        ro.total_order_seek = true;
      }
      plain.reset(db->NewIterator(ro));
      it = plain.get();
    }
    int n = 0;
    for (it->Seek(lower); it->Valid() && n < 16; it->Next()) ++n;
    m.rows += n;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  m.scans_per_s = static_cast<double>(scans.size()) / seconds;
  m.blocks_per_scan =
      static_cast<double>(BlocksRead(*stats) - blocks_before) / static_cast<double>(scans.size());
  return m;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  auto stats = rocksdb::CreateDBStatistics();
  std::filesystem::remove_all(flags.db);
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(DbOptions(stats), flags.db, &raw);
  if (!s.ok()) {
    std::fprintf(stderr, "open %s: %s (direct reads need a real disk)\n", flags.db.c_str(),
                 s.ToString().c_str());
    return 1;
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  std::vector<uint64_t> ids;
  uint64_t state = 1;
  for (uint64_t i = 0; i < flags.keys; ++i) ids.push_back(Rand(&state) % kIdSpace);
  std::string value(100, ' ');
  for (uint64_t id : ids) {
    for (size_t i = 0; i < value.size(); i += 8) {
      const uint64_t r = Rand(&state);
      std::memcpy(&value[i], &r, std::min<size_t>(8, value.size() - i));
    }
    db->Put(rocksdb::WriteOptions(), Key(id), value);
  }
  db->Flush(rocksdb::FlushOptions());
  WaitForCompactions(db.get());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::string levels;
  int deepest = 0;
  for (int l = 0; l < 7; ++l) {
    std::string n;
    db->GetProperty("rocksdb.num-files-at-level" + std::to_string(l), &n);
    levels += (l ? ", L" : "L") + std::to_string(l) + " " + n;
    if (n != "0") deepest = l;
  }
  std::printf("DB: %zu keys of 16 bytes, 100-byte random values, no compression; files %s "
              "(%d levels); block cache 8 MiB, direct reads.\n\n",
              ids.size(), levels.c_str(), deepest + 1);
  std::printf("| L | scans | config | scans/s | x none | blocks read/scan | x none | rows/scan |\n");
  std::printf("|---:|---|---|---:|---:|---:|---:|---:|\n");
  for (uint64_t length : {1, 16, 256}) {
    for (bool empty : {true, false}) {
      // Scans within one prefix run of ids: empty ones hold no key, the
      // others start at a key.
      std::vector<Scan> scans;
      uint64_t qs = 99 + length;
      while (scans.size() < flags.scans) {
        uint64_t lo = empty ? Rand(&qs) % (kIdSpace - kRun) : ids[Rand(&qs) % ids.size()];
        if (lo / kRun != (lo + length - 1) / kRun) continue;
        const auto next = std::lower_bound(ids.begin(), ids.end(), lo);
        const bool holds = next != ids.end() && *next < lo + length;
        if (holds == empty) continue;
        scans.push_back({lo, length});
      }
      std::vector<double> rate[3], blocks[3], rate_ratio[3], block_ratio[3];
      uint64_t rows[3] = {};
      for (int round = 0; round < flags.rounds; ++round) {
        Measured m[3];
        for (Config c : {kNone, kPrefix, kRange}) m[c] = Run(db.get(), stats.get(), scans, c);
        for (Config c : {kNone, kPrefix, kRange}) {
          rate[c].push_back(m[c].scans_per_s);
          blocks[c].push_back(m[c].blocks_per_scan);
          rate_ratio[c].push_back(m[c].scans_per_s / m[kNone].scans_per_s);
          block_ratio[c].push_back(m[kNone].blocks_per_scan > 0
                                       ? m[c].blocks_per_scan / m[kNone].blocks_per_scan
                                       : 1.0);
          rows[c] = m[c].rows;
        }
      }
      for (Config c : {kPrefix, kRange}) {
        if (rows[c] != rows[kNone]) {
          std::fprintf(stderr, "range_bench: %s returned %llu rows, none %llu\n", kConfigNames[c],
                       static_cast<unsigned long long>(rows[c]),
                       static_cast<unsigned long long>(rows[kNone]));
          return 1;
        }
      }
      for (Config c : {kNone, kPrefix, kRange}) {
        std::printf("| %llu | %s | %s | %.0f | %.2f | %.2f | %.2f | %.2f |\n",
                    static_cast<unsigned long long>(length), empty ? "empty" : "non-empty",
                    kConfigNames[c], Median(rate[c]), Median(rate_ratio[c]), Median(blocks[c]),
                    Median(block_ratio[c]),
                    static_cast<double>(rows[c]) / static_cast<double>(scans.size()));
      }
    }
  }
  db.reset();
  std::filesystem::remove_all(flags.db);
  return 0;
}
