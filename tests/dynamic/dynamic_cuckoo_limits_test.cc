// DynamicCuckooFilter's limits in the doubling format (versions 1 to 3): growth past the planned size never stops
// short of memory and keeps the members few; Load checks every size field
// against the input before it allocates anything.

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <iterator>
#include <memory>
#include <string>

#include "dynamic_test_util.h"
#include "format/coding.h"
#include "format/hash.h"
#include "sstfilter/dynamic_cuckoo.h"

namespace sstfilter {
namespace {

using test::NewDynamic;

// Inserts keys [0, n) and checks each is found afterwards.
void FillAndCheck(DynamicCuckooFilter* f, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    ASSERT_EQ(f->Insert("k" + std::to_string(i)), DynamicStatus::kOk) << "insert #" << i;
  }
  uint64_t missed = 0;
  for (uint64_t i = 0; i < n; ++i) missed += f->Contains("k" + std::to_string(i)) ? 0 : 1;
  EXPECT_EQ(missed, 0u);
  EXPECT_EQ(f->Size(), n);
  EXPECT_LE(f->ExpectedFpr(), 0.001);
}

// A filter planned not to grow (expected_max_keys = initial_capacity) used
// to add members of its first member's size: kFull at insert #49,248 for
// 1024/1024, 20 members at 2M keys for 100000/100000.
TEST(DynamicCuckooLimitsTest, GrowsPastAFilterPlannedNotToGrow) {
  auto small = NewDynamic(1024, 1024, test::kLegacyFormat);
  FillAndCheck(small.get(), 1'000'000);
  // 1024 -> 1M is 2^10: member 1 covers 2^5 (from 2x to 32x), member 2
  // the next 2^5 (to 1024x), member 3 the rest.
  EXPECT_LE(small->Members(), 4u);
  EXPECT_LE(8.0 * small->MemoryBytes() / small->Size(), 40.0);

  auto large = NewDynamic(100'000, 100'000, test::kLegacyFormat);
  FillAndCheck(large.get(), 2'000'000);
  EXPECT_LE(large->Members(), 3u);
  EXPECT_LE(8.0 * large->MemoryBytes() / large->Size(), 40.0);
}

TEST(DynamicCuckooLimitsTest, GrownFiltersRoundTrip) {
  auto f = NewDynamic(1024, 1024, test::kLegacyFormat);
  FillAndCheck(f.get(), 100'000);
  ASSERT_GT(f->Members(), 1u);
  std::string bytes;
  f->Save(&bytes);
  // Later members planned by the new rule: version 3.
  EXPECT_EQ(bytes[4], 3);
  std::unique_ptr<DynamicCuckooFilter> g;
  ASSERT_EQ(DynamicCuckooFilter::Load(bytes, &g), DynamicStatus::kOk);
  EXPECT_EQ(g->Members(), f->Members());
  std::string again;
  g->Save(&again);
  EXPECT_EQ(again, bytes);
  for (int i = 0; i < 100'000; i += 7) ASSERT_TRUE(g->Contains("k" + std::to_string(i))) << i;
  // The same bytes labelled version 1 describe another schedule.
  bytes[4] = 1;
  const size_t body = bytes.size() - 4;
  bytes.resize(body);
  PutFixed32(&bytes, ContentChecksum(bytes.data(), body));
  EXPECT_EQ(DynamicCuckooFilter::Load(bytes, &g), DynamicStatus::kCorrupt);
  // Options the two rules plan alike still save as version 1.
  auto planned = NewDynamic(1024, 1 << 20, test::kLegacyFormat);
  FillAndCheck(planned.get(), 5000);
  std::string v1;
  planned->Save(&v1);
  EXPECT_EQ(v1[4], 1);
}

std::string ReadData(const std::string& name) {
  std::ifstream in(std::string(SSTFILTER_TEST_DATA_DIR) + "/" + name, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A version 1 file from the build before the new rule (tests/data/README.md):
// it loads, keeps its schedule, and saves back to the same bytes.
TEST(DynamicCuckooLimitsTest, Version1FilesKeepTheirSchedule) {
  const std::string bytes = ReadData("dynamic_v1_planned_only.bin");
  ASSERT_GT(bytes.size(), 1000u);
  std::unique_ptr<DynamicCuckooFilter> f;
  ASSERT_EQ(DynamicCuckooFilter::Load(bytes, &f), DynamicStatus::kOk);
  EXPECT_EQ(f->Size(), 3000u);
  EXPECT_EQ(f->Members(), 3u);
  for (int i = 0; i < 3000; ++i) ASSERT_TRUE(f->Contains("legacy-" + std::to_string(i))) << i;
  std::string again;
  f->Save(&again);
  EXPECT_EQ(again, bytes);
  // It grows on under its own schedule and still saves as version 1.
  for (int i = 3000; i < 5000; ++i) {
    ASSERT_EQ(f->Insert("legacy-" + std::to_string(i)), DynamicStatus::kOk);
  }
  again.clear();  // (Save appends)
  f->Save(&again);
  EXPECT_EQ(again[4], 1);
  std::unique_ptr<DynamicCuckooFilter> g;
  ASSERT_EQ(DynamicCuckooFilter::Load(again, &g), DynamicStatus::kOk);
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(g->Contains("legacy-" + std::to_string(i))) << i;
}

// Virtual memory the process has mapped at its peak, in bytes (Linux).
uint64_t VmPeakBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmPeak:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
  }
  return 0;
}

// Size fields set to huge values, the checksum made right again: kCorrupt,
// with no exception and no large mapping on the way.
TEST(DynamicCuckooLimitsTest, LoadChecksSizesBeforeAllocating) {
  auto f = NewDynamic(1024, 0, test::kLegacyFormat);
  FillAndCheck(f.get(), 500);
  std::string saved;
  f->Save(&saved);
  struct Field {
    const char* name;
    size_t offset;
    int width;
  };
  // docs/format.md, "Dynamic cuckoo filter": header, then member 0's header.
  const Field fields[] = {{"initial_capacity", 16, 8}, {"expected_max_keys", 24, 8},
                          {"members", 40, 4},          {"base_buckets", 48, 8},
                          {"zero_capacity", 72, 8}};
  const uint64_t values[] = {uint64_t{1} << 40, (uint64_t{1} << 31) - 1, uint64_t{1} << 39,
                             ~uint64_t{0}, uint64_t{1} << 62};
  const uint64_t peak_before = VmPeakBytes();
  ASSERT_GT(peak_before, 0u);
  for (const Field& field : fields) {
    for (uint64_t v : values) {
      std::string bad = saved.substr(0, saved.size() - 4);
      std::string enc;
      if (field.width == 8) {
        PutFixed64(&enc, v);
      } else {
        PutFixed32(&enc, static_cast<uint32_t>(v));
      }
      bad.replace(field.offset, enc.size(), enc);
      PutFixed32(&bad, ContentChecksum(bad.data(), bad.size()));
      std::unique_ptr<DynamicCuckooFilter> g;
      DynamicStatus s = DynamicStatus::kOk;
      EXPECT_NO_THROW(s = DynamicCuckooFilter::Load(bad, &g)) << field.name << " = " << v;
      EXPECT_EQ(s, DynamicStatus::kCorrupt) << field.name << " = " << v;
      EXPECT_EQ(g, nullptr);
    }
  }
  // Before the fix, initial_capacity = 2^31 - 1 mapped 8.5 GB.
  EXPECT_LT(VmPeakBytes() - peak_before, uint64_t{256} << 20);
}

// The first member's share and load limit (version 2) out of Create's
// ranges: kCorrupt before any size is computed from them (a load limit of
// 1e-300 made the schedule's first table infinite, a float-to-integer
// overflow, found by the fuzzer).
TEST(DynamicCuckooLimitsTest, LoadChecksOptionsBeforePlanning) {
  DynamicCuckooOptions o;
  o.format_version = test::kLegacyFormat;
  o.first_member_fpr_share = 0.9;
  o.first_member_max_load = 0.9;
  std::unique_ptr<DynamicCuckooFilter> f;
  ASSERT_EQ(DynamicCuckooFilter::Create(o, &f), DynamicStatus::kOk);
  std::string saved;
  f->Save(&saved);
  ASSERT_EQ(saved[4], 2);
  const double bad[] = {1e-300, -0.5, 2.0, std::numeric_limits<double>::quiet_NaN(),
                        std::numeric_limits<double>::infinity()};
  for (size_t offset : {48, 56}) {
    for (double d : bad) {
      std::string bytes = saved.substr(0, saved.size() - 4);
      uint64_t u;
      std::memcpy(&u, &d, sizeof(u));
      std::string enc;
      PutFixed64(&enc, u);
      bytes.replace(offset, 8, enc);
      PutFixed32(&bytes, ContentChecksum(bytes.data(), bytes.size()));
      std::unique_ptr<DynamicCuckooFilter> g;
      EXPECT_EQ(DynamicCuckooFilter::Load(bytes, &g), DynamicStatus::kCorrupt)
          << "offset " << offset << " = " << d;
    }
  }
}

}  // namespace
}  // namespace sstfilter
