// The RocksDB-facing builder and reader through RocksDB's own (internal)
// interfaces, as the table builder drives them: partition-style reuse
// after Finish, entry estimates, MaybePostVerify catching a damaged
// filter, and readers over foreign or damaged bytes.

#include <gtest/gtest.h>
#include <rocksdb/table.h>
#include <sstfilter/sstfilter.h>

#include <iostream>
#include <memory>
#include <string>

#include "filters/reader_dispatch.h"
#include "rocksdb_adapter/rocksdb_internal.h"

namespace sstfilter {
namespace {

class BuilderTest : public ::testing::TestWithParam<const char*> {
 protected:
  std::unique_ptr<rocksdb::FilterBitsBuilder> NewBuilder(bool verify) {
    std::shared_ptr<const rocksdb::FilterPolicy> policy;
    EXPECT_TRUE(NewFilterPolicy(GetParam(), 12, &policy).ok());
    policy_ = policy;
    table_.detect_filter_construct_corruption = verify;
    // Partition sizes as planned (optimize_filters_for_memory, on by
    // default from 9.2, may add up to one allocator size class).
    table_.optimize_filters_for_memory = false;
    return std::unique_ptr<rocksdb::FilterBitsBuilder>(
        policy_->GetBuilderWithContext(rocksdb::FilterBuildingContext(table_)));
  }

  static std::string Key(int i) { return "key" + std::to_string(i); }

  std::shared_ptr<const rocksdb::FilterPolicy> policy_;
  rocksdb::BlockBasedTableOptions table_;
};

TEST_P(BuilderTest, MaybePostVerifyCatchesADamagedFilter) {
  auto builder = NewBuilder(/*verify=*/true);
  for (int i = 0; i < 5000; ++i) builder->AddKey(Key(i));
  std::unique_ptr<const char[]> buf;
  rocksdb::Status finish_status;
  const rocksdb::Slice filter = builder->Finish(&buf, &finish_status);
  ASSERT_TRUE(finish_status.ok());
  EXPECT_TRUE(builder->MaybePostVerify(filter).ok());

  // Damage the filter in memory, as a bad DIMM or stray write would, and
  // build again: verification must refuse it, wherever the damage is.
  for (size_t offset : {size_t{0}, filter.size() / 2, filter.size() - 1}) {
    for (int i = 0; i < 5000; ++i) builder->AddKey(Key(i));
    const rocksdb::Slice again = builder->Finish(&buf, &finish_status);
    ASSERT_EQ(again.size(), filter.size());
    const_cast<char*>(again.data())[offset] ^= 0x10;
    const rocksdb::Status s = builder->MaybePostVerify(again);
    EXPECT_TRUE(s.IsCorruption()) << "offset " << offset << ": " << s.ToString();
  }
}

TEST_P(BuilderTest, ReusedAfterFinishLikePartitions) {
  auto builder = NewBuilder(/*verify=*/false);
  const size_t per_partition = builder->ApproximateNumEntries(4096);
  ASSERT_GT(per_partition, 1000u);  // 4 KiB at 12 bits/key: about 2700 keys
  std::unique_ptr<const char[]> bufs[3];
  rocksdb::Slice parts[3];
  for (int p = 0; p < 3; ++p) {
    for (size_t i = 0; i < per_partition; ++i) builder->AddKey(Key(p * 100000 + i));
    // A run of repeats of the last key adds nothing.
    for (int r = 0; r < 10; ++r) builder->AddKey(Key(p * 100000 + per_partition - 1));
    EXPECT_EQ(builder->EstimateEntriesAdded(), per_partition);
    parts[p] = builder->Finish(&bufs[p]);
    EXPECT_LE(parts[p].size(), 4096u) << "partition " << p;
  }
  for (int p = 0; p < 3; ++p) {
    std::unique_ptr<rocksdb::FilterBitsReader> reader(policy_->GetFilterBitsReader(parts[p]));
    for (size_t i = 0; i < per_partition; ++i) {
      ASSERT_TRUE(reader->MayMatch(Key(p * 100000 + i))) << p << " " << i;
    }
    // Keys of the other partitions are mostly rejected: nothing carried over.
    int other = 0;
    for (size_t i = 0; i < per_partition; ++i) other += reader->MayMatch(Key(((p + 1) % 3) * 100000 + i));
    EXPECT_LT(other, static_cast<int>(per_partition / 20));
  }
}

TEST_P(BuilderTest, ForeignAndDamagedBytesMayMatchEverything) {
  std::shared_ptr<const rocksdb::FilterPolicy> policy;
  ASSERT_TRUE(NewFilterPolicy(GetParam(), 12, &policy).ok());
  // A built-in Bloom filter's bytes, empty bytes, and garbage.
  std::shared_ptr<const rocksdb::FilterPolicy> builtin(rocksdb::NewBloomFilterPolicy(10));
  std::unique_ptr<rocksdb::FilterBitsBuilder> b(
      builtin->GetBuilderWithContext(rocksdb::FilterBuildingContext(table_)));
  b->AddKey("x");
  std::unique_ptr<const char[]> buf;
  const rocksdb::Slice builtin_bytes = b->Finish(&buf);
  for (const rocksdb::Slice& bytes :
       {builtin_bytes, rocksdb::Slice(), rocksdb::Slice("garbage garbage")}) {
    std::unique_ptr<rocksdb::FilterBitsReader> reader(policy->GetFilterBitsReader(bytes));
    std::string keys_s[3] = {"a", "b", "c"};
    rocksdb::Slice keys[3] = {keys_s[0], keys_s[1], keys_s[2]};
    rocksdb::Slice* ptrs[3] = {&keys[0], &keys[1], &keys[2]};
    bool results[3] = {false, false, false};
    reader->MayMatch(3, ptrs, results);
    for (int i = 0; i < 3; ++i) {
      EXPECT_TRUE(reader->MayMatch(keys[i]));
      EXPECT_TRUE(results[i]);
    }
  }
}

// Small partitions (a small metadata_block_size) and tiny SSTs get the
// small form through the core builder, in the bytes the policy's own
// filter would take: RocksDB sizes partitions with ApproximateNumEntries,
// reads them back, and MaybePostVerify checks them.
TEST_P(BuilderTest, SmallPartitionsUseTheSmallForm) {
  auto builder = NewBuilder(/*verify=*/true);
  const size_t per_partition = builder->ApproximateNumEntries(256);
  // 256 bytes at 12 bits/key: 128 keys for Bloom (whole 64-byte lines,
  // 200 bytes), 168 for cuckoo.
  ASSERT_GT(per_partition, 100u);
  for (size_t i = 0; i < per_partition; ++i) builder->AddKey(Key(static_cast<int>(i)));
  std::unique_ptr<const char[]> buf;
  rocksdb::Status finish_status;
  const rocksdb::Slice filter = builder->Finish(&buf, &finish_status);
  ASSERT_TRUE(finish_status.ok());
  EXPECT_LE(filter.size(), 256u);
  ParsedFilter parsed;
  ASSERT_TRUE(ParseFilter(filter.data(), filter.size(), &parsed, ChecksumCheck::kEngineVerified));
  EXPECT_EQ(parsed.kind, kSmallFormKind);
  EXPECT_TRUE(builder->MaybePostVerify(filter).ok());

  std::unique_ptr<rocksdb::FilterBitsReader> reader(policy_->GetFilterBitsReader(filter));
  int positives = 0;
  for (size_t i = 0; i < per_partition; ++i) {
    const std::string key = Key(static_cast<int>(i));
    ASSERT_TRUE(reader->MayMatch(key)) << i;
    rocksdb::Slice k(key);
    rocksdb::Slice* ptr = &k;
    bool result = false;
    reader->MayMatch(1, &ptr, &result);
    ASSERT_TRUE(result) << i;
  }
  for (int i = 0; i < 20000; ++i) positives += reader->MayMatch("absent" + std::to_string(i));
  // Expected n / N: about 0.07% (Bloom's budget) or 0.1% (cuckoo's); the
  // version-1 Bloom filter of Bloom's bytes, about 0.3%.
  EXPECT_LT(positives, 20000 * 0.002) << positives;
  std::cout << GetParam() << ": " << per_partition << " keys, " << filter.size() << " bytes, "
            << positives << " of 20000 absent keys pass\n";

  // A flip in the bitmap (byte 0) is always refused by post-verification.
  for (size_t i = 0; i < per_partition; ++i) builder->AddKey(Key(static_cast<int>(i)));
  const rocksdb::Slice again = builder->Finish(&buf, &finish_status);
  const_cast<char*>(again.data())[0] ^= 0x10;
  EXPECT_TRUE(builder->MaybePostVerify(again).IsCorruption());
}

INSTANTIATE_TEST_SUITE_P(Policies, BuilderTest, ::testing::Values("bloom", "cuckoo"));

}  // namespace
}  // namespace sstfilter
