// Files of the doubling format (versions 1 to 3), written by the builds that
// still wrote it (tests/data/README.md), load with today's reader: every
// key they hold matches, absent keys match at no more than the saved
// target, and Save gives back the same bytes. Such a filter is read-only.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

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

INSTANTIATE_TEST_SUITE_P(Versions, DynamicLegacyTest, ::testing::ValuesIn(kGolden),
                         [](const ::testing::TestParamInfo<Golden>& info) {
                           return "V" + std::to_string(info.param.version);
                         });

}  // namespace
}  // namespace sstfilter
