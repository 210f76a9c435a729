// Files of the doubling format (versions 1 to 3), written by the builds that
// still wrote it (tests/data/README.md), load with today's reader: every
// key they hold matches, absent keys match at no more than the saved
// target, and Save gives back the same bytes. Such a filter is read-only,
// and Create no longer builds those versions.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <string>

#include "dynamic_test_util.h"
#include "format/coding.h"
#include "format/hash.h"
#include "sstfilter/dynamic_cuckoo.h"

namespace sstfilter {
namespace {

std::string ReadData(const std::string& name) {
  std::ifstream in(std::string(SSTFILTER_TEST_DATA_DIR) + "/" + name, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

struct Golden {
  const char* file;
  int version;
  const char* prefix;  // keys "<prefix>-<i>"
  int present;         // keys [0, present) are held
  uint64_t size;       // Size() as saved
  bool checked;
};

const Golden kGolden[] = {
    {"dynamic_v1.bin", 1, "v1", 20000, 20000, false},
    // Every tenth key was erased: held are the others.
    {"dynamic_v2.bin", 2, "v2", 6000, 5400, true},
    // Keys 5000..7999 were erased.
    {"dynamic_v3.bin", 3, "v3", 5000, 5600, false},
};

class DynamicLegacyTest : public ::testing::TestWithParam<Golden> {};

TEST_P(DynamicLegacyTest, LoadsWithNoFalseNegativeAndTheSavedFpr) {
  const Golden& g = GetParam();
  const std::string bytes = ReadData(g.file);
  ASSERT_GT(bytes.size(), 1000u);
  ASSERT_EQ(bytes[4], g.version);
  std::unique_ptr<DynamicCuckooFilter> f;
  ASSERT_EQ(DynamicCuckooFilter::Load(bytes, &f), DynamicStatus::kOk);
  EXPECT_EQ(f->Size(), g.size);
  EXPECT_EQ(f->options().checked, g.checked);
  for (int i = 0; i < g.present; ++i) {
    if (g.version == 2 && i % 10 == 0) continue;
    ASSERT_TRUE(f->Contains(std::string(g.prefix) + "-" + std::to_string(i))) << i;
  }
  // 200,000 absent keys: the count stays below target * n plus four
  // standard deviations (the model FPR of these files is under half the
  // target, so this cannot fail by luck).
  const double target = f->options().target_fpr;
  EXPECT_LE(f->ExpectedFpr(), target);
  constexpr int kAbsent = 200000;
  int hits = 0;
  for (int i = 0; i < kAbsent; ++i) hits += f->Contains("absent-" + std::to_string(i));
  const double mean = target * kAbsent;
  EXPECT_LE(hits, mean + 4 * std::sqrt(mean) + 1);
  std::string again;
  f->Save(&again);
  EXPECT_EQ(again, bytes);
}

TEST_P(DynamicLegacyTest, IsReadOnly) {
  const Golden& g = GetParam();
  std::unique_ptr<DynamicCuckooFilter> f;
  ASSERT_EQ(DynamicCuckooFilter::Load(ReadData(g.file), &f), DynamicStatus::kOk);
  EXPECT_EQ(f->options().format_version, static_cast<uint32_t>(g.version));
  const std::string held = std::string(g.prefix) + "-1";
  EXPECT_EQ(f->Insert("new key"), DynamicStatus::kReadOnly);
  EXPECT_EQ(f->Erase(held), DynamicStatus::kReadOnly);
  EXPECT_TRUE(f->Contains(held));
  EXPECT_EQ(f->Size(), g.size);
  std::unique_ptr<DynamicCuckooFilter> fresh;
  DynamicCuckooOptions o;
  ASSERT_EQ(DynamicCuckooFilter::Create(o, &fresh), DynamicStatus::kOk);
  ASSERT_EQ(fresh->Insert("kept"), DynamicStatus::kOk);
  std::unique_ptr<DynamicCuckooFilter> other;
  ASSERT_EQ(DynamicCuckooFilter::Load(ReadData(g.file), &other), DynamicStatus::kOk);
  // Neither way round: a read-only filter neither takes over nor is replaced.
  EXPECT_EQ(fresh->ReplaceWith(std::move(other)), DynamicStatus::kInvalidArgument);
  EXPECT_TRUE(fresh->Contains("kept"));
  EXPECT_EQ(f->ReplaceWith(std::move(fresh)), DynamicStatus::kInvalidArgument);
  // Its options name a format Create no longer writes.
  EXPECT_EQ(DynamicCuckooFilter::Create(f->options(), &fresh), DynamicStatus::kInvalidArgument);
}

// A damaged file (a bit changed anywhere, the checksum made to match) is
// kCorrupt, or loads as a filter that differs by at most the one slot the
// bit is in: every size and offset is checked, so no damage reads out of
// bounds (ASan) or loses more than that slot's key.
TEST_P(DynamicLegacyTest, DamageIsCorruptOrOneSlot) {
  const Golden& g = GetParam();
  const std::string bytes = ReadData(g.file);
  int rejected = 0;
  for (size_t i = 0; i + 4 < bytes.size(); i += 1 + i / 64) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    std::unique_ptr<DynamicCuckooFilter> f;
    if (DynamicCuckooFilter::Load(test::Resealed(bad), &f) != DynamicStatus::kOk) {
      ++rejected;
      continue;
    }
    int missed = 0;
    for (int k = 0; k < g.present; k += 3) {
      if (g.version == 2 && k % 10 == 0) continue;
      missed += !f->Contains(std::string(g.prefix) + "-" + std::to_string(k));
    }
    EXPECT_LE(missed, 1) << "byte " << i;
  }
  EXPECT_GT(rejected, 40);  // the header's bytes at least
}

TEST(DynamicLegacyTest, CreateRefusesTheDoublingVersions) {
  for (uint32_t v : {1u, 2u, 3u, 4u, 6u}) {
    DynamicCuckooOptions o;
    o.format_version = v;
    std::unique_ptr<DynamicCuckooFilter> f;
    EXPECT_EQ(DynamicCuckooFilter::Create(o, &f), DynamicStatus::kInvalidArgument) << v;
    EXPECT_EQ(f, nullptr);
  }
}

// A version 1 file from the build before later members planned doublings
// of their own (tests/data/README.md): it loads under its own schedule and
// saves back to the same bytes.
TEST(DynamicLegacyTest, Version1FilesKeepTheirSchedule) {
  const std::string bytes = ReadData("dynamic_v1_planned_only.bin");
  ASSERT_GT(bytes.size(), 1000u);
  std::unique_ptr<DynamicCuckooFilter> f;
  ASSERT_EQ(DynamicCuckooFilter::Load(bytes, &f), DynamicStatus::kOk);
  EXPECT_EQ(f->Size(), 3000u);
  for (int i = 0; i < 3000; ++i) ASSERT_TRUE(f->Contains("legacy-" + std::to_string(i))) << i;
  std::string again;
  f->Save(&again);
  EXPECT_EQ(again, bytes);
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
TEST(DynamicLegacyTest, LoadChecksSizesBeforeAllocating) {
  const std::string saved = ReadData("dynamic_v1.bin");
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
TEST(DynamicLegacyTest, LoadChecksOptionsBeforePlanning) {
  const std::string saved = ReadData("dynamic_v2.bin");
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

INSTANTIATE_TEST_SUITE_P(Versions, DynamicLegacyTest, ::testing::ValuesIn(kGolden),
                         [](const ::testing::TestParamInfo<Golden>& info) {
                           return "V" + std::to_string(info.param.version);
                         });

}  // namespace
}  // namespace sstfilter
