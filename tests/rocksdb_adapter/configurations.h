// The RocksDB configurations rocksdb_configurations_test runs each kind
// in: what each sets, and how the test writes and reads under it (Shape).
// docs/guide/configurations.md lists them with their status.

#pragma once

#include <rocksdb/comparator.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/version.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sstfilter {
namespace test {

// The prefix extractor's length: "a" and the six-digit group of the
// test's keys.
constexpr size_t kConfigPrefix = 7;

// How a configuration writes and reads.
struct Shape {
  bool compact = true;       // CompactRange after the flush
  bool timestamps = false;   // user-defined timestamps
  bool prefix_only = false;  // whole_key_filtering=false: reads by prefix
  bool ingest = false;       // written by SstFileWriter and ingested
  // A key past the written ones compacted to the bottom level first, so
  // the written keys' files are not in the last level holding data.
  bool bottom_sentinel = false;
  enum class Reader { kPrimary, kReadOnly, kSecondary } reader = Reader::kPrimary;
};

struct Configuration {
  const char* name;
  // Sets the options; returns "" or the reason to skip on this release.
  std::function<std::string(rocksdb::Options*, rocksdb::BlockBasedTableOptions*, std::string*)>
      set;
  Shape shape;
};

inline std::string TimestampOf(uint64_t ts) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(ts >> (8 * i));
  return s;
}

#if ROCKSDB_MAJOR > 8 || (ROCKSDB_MAJOR == 8 && ROCKSDB_MINOR >= 6)
inline const rocksdb::Comparator* TimestampComparator() {
  return rocksdb::BytewiseComparatorWithU64Ts();
}
#else
// Before 8.6 RocksDB's public headers have no timestamp comparator: keys
// bytewise, then their 8-byte little-endian timestamps, newest first, as
// BytewiseComparatorWithU64Ts orders them.
class U64TsComparator : public rocksdb::Comparator {
 public:
  U64TsComparator() : rocksdb::Comparator(8) {}
  const char* Name() const override { return "sstfilter.test.BytewiseU64Ts"; }
  static uint64_t Ts(const rocksdb::Slice& ts) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(ts[i]);
    return v;
  }
  int CompareTimestamp(const rocksdb::Slice& a, const rocksdb::Slice& b) const override {
    const uint64_t x = Ts(a), y = Ts(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  int CompareWithoutTimestamp(const rocksdb::Slice& a, bool a_has_ts, const rocksdb::Slice& b,
                              bool b_has_ts) const override {
    const rocksdb::Slice x(a.data(), a.size() - (a_has_ts ? 8 : 0));
    const rocksdb::Slice y(b.data(), b.size() - (b_has_ts ? 8 : 0));
    return x.compare(y);
  }
  int Compare(const rocksdb::Slice& a, const rocksdb::Slice& b) const override {
    const int r = CompareWithoutTimestamp(a, true, b, true);
    if (r != 0) return r;
    return -CompareTimestamp(rocksdb::Slice(a.data() + a.size() - 8, 8),
                             rocksdb::Slice(b.data() + b.size() - 8, 8));
  }
  void FindShortestSeparator(std::string*, const rocksdb::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};
inline const rocksdb::Comparator* TimestampComparator() {
  static const U64TsComparator comparator;
  return &comparator;
}
#endif

inline std::string NoSkip(rocksdb::Options*, rocksdb::BlockBasedTableOptions*, std::string*) {
  return "";
}

inline std::string Monkey(std::string* policy) {
  *policy = "{id=" + *policy + ";bits_per_key=10;allocation=monkey}";
  return "";
}

inline bool HasCompression(rocksdb::CompressionType* type) {
  for (rocksdb::CompressionType t : rocksdb::GetSupportedCompressions()) {
    if (t != rocksdb::kNoCompression) {
      *type = t;
      return true;
    }
  }
  return false;
}

inline Configuration Checksum(const char* name, rocksdb::ChecksumType type) {
  return {name,
          [type](rocksdb::Options*, rocksdb::BlockBasedTableOptions* t, std::string*) {
            t->checksum = type;
            return std::string();
          },
          {}};
}

// The newest block-based table format this RocksDB writes: 6 from 8.6,
// 7 from 10.x (no 10.x is built here).
constexpr int kNewestFormatVersion =
    ROCKSDB_MAJOR >= 10                                                    ? 7
    : ROCKSDB_MAJOR == 9 || (ROCKSDB_MAJOR == 8 && ROCKSDB_MINOR >= 6) ? 6
                                                                       : 5;

inline std::vector<Configuration> Configurations() {
  std::vector<Configuration> c;
  c.push_back({"plain", NoSkip, {}});
  c.push_back({"partitioned",
               [](rocksdb::Options*, rocksdb::BlockBasedTableOptions* t, std::string*) {
                 t->index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
                 t->partition_filters = true;
                 t->metadata_block_size = 1024;  // several partitions per file
                 return std::string();
               },
               {}});
  c.push_back({"prefix_and_whole_key",
               [](rocksdb::Options* o, rocksdb::BlockBasedTableOptions*, std::string*) {
                 o->prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(kConfigPrefix));
                 return std::string();
               },
               {}});
  Shape prefix_only;
  prefix_only.prefix_only = true;
  c.push_back({"prefix_only",  // as TiKV's write column family
               [](rocksdb::Options* o, rocksdb::BlockBasedTableOptions* t, std::string*) {
                 o->prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(kConfigPrefix));
                 t->whole_key_filtering = false;
                 return std::string();
               },
               prefix_only});
  c.push_back({"partitioned_prefix",
               [](rocksdb::Options* o, rocksdb::BlockBasedTableOptions* t, std::string*) {
                 o->prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(kConfigPrefix));
                 t->index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
                 t->partition_filters = true;
                 t->metadata_block_size = 1024;
                 return std::string();
               },
               {}});
  c.push_back({"partitioned_monkey",
               [](rocksdb::Options*, rocksdb::BlockBasedTableOptions* t, std::string* policy) {
                 t->index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
                 t->partition_filters = true;
                 t->metadata_block_size = 1024;
                 return Monkey(policy);
               },
               {}});
  for (int fv : {5, 6, 7}) {
    c.push_back({fv == 5 ? "format_version_5" : fv == 6 ? "format_version_6" : "format_version_7",
                 [fv](rocksdb::Options*, rocksdb::BlockBasedTableOptions* t, std::string*) {
                   if (fv > kNewestFormatVersion) {
                     return "format_version " + std::to_string(fv) + " is newer than this RocksDB";
                   }
                   t->format_version = static_cast<uint32_t>(fv);
                   return std::string();
                 },
                 {}});
  }
  c.push_back(Checksum("checksum_crc32c", rocksdb::kCRC32c));
  c.push_back(Checksum("checksum_xxhash", rocksdb::kxxHash));
  c.push_back(Checksum("checksum_xxhash64", rocksdb::kxxHash64));
  c.push_back(Checksum("checksum_xxh3", rocksdb::kXXH3));
  c.push_back(Checksum("checksum_none", rocksdb::kNoChecksum));
  c.push_back({"subcompactions_and_parallel_compression",
               [](rocksdb::Options* o, rocksdb::BlockBasedTableOptions*, std::string*) {
                 rocksdb::CompressionType type;
                 if (!HasCompression(&type)) return std::string("no compression library built in");
                 o->compression = type;
                 o->compression_opts.parallel_threads = 2;
                 o->max_subcompactions = 2;
                 return std::string();
               },
               {}});
  c.push_back({"blob_files",
               [](rocksdb::Options* o, rocksdb::BlockBasedTableOptions*, std::string*) {
                 o->enable_blob_files = true;
                 o->min_blob_size = 0;
                 return std::string();
               },
               {}});
  Shape timestamps;
  timestamps.timestamps = true;
  c.push_back({"user_defined_timestamps",
               [](rocksdb::Options* o, rocksdb::BlockBasedTableOptions*, std::string*) {
                 o->comparator = TimestampComparator();
                 return std::string();
               },
               timestamps});
  Shape read_only;
  read_only.reader = Shape::Reader::kReadOnly;
  c.push_back({"read_only_instance", NoSkip, read_only});
  Shape secondary;
  secondary.reader = Shape::Reader::kSecondary;
  c.push_back({"secondary_instance", NoSkip, secondary});
  Shape no_compaction;
  no_compaction.compact = false;
  c.push_back({"fifo_compaction",
               [](rocksdb::Options* o, rocksdb::BlockBasedTableOptions*, std::string*) {
                 o->compaction_style = rocksdb::kCompactionStyleFIFO;
                 return std::string();
               },
               no_compaction});
  // With optimize_filters_for_hits RocksDB builds no filter for, and reads
  // none in, the last level holding data: the written keys stay in L0,
  // above a sentinel in the bottom level.
  Shape above_bottom = no_compaction;
  above_bottom.bottom_sentinel = true;
  c.push_back({"optimize_filters_for_hits_monkey",
               [](rocksdb::Options* o, rocksdb::BlockBasedTableOptions*, std::string* policy) {
                 o->optimize_filters_for_hits = true;
                 return Monkey(policy);
               },
               above_bottom});
  Shape ingest;
  ingest.ingest = true;
  ingest.compact = false;
  c.push_back({"sst_file_writer_monkey",
               [](rocksdb::Options*, rocksdb::BlockBasedTableOptions*, std::string* policy) {
                 return Monkey(policy);
               },
               ingest});
  c.push_back({"optimize_filters_for_memory",
               [](rocksdb::Options*, rocksdb::BlockBasedTableOptions* t, std::string*) {
                 t->optimize_filters_for_memory = true;
                 return std::string();
               },
               {}});
  return c;
}

}  // namespace test
}  // namespace sstfilter
