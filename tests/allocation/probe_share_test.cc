// ProbeShare: the share of lookups, drawn as a reference level's keys, that
// land in a set of key ranges; ranges counted once where they overlap, a
// reference file's keys taken as evenly spread over its range.

#include "allocation/probe_share.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sstfilter {
namespace {

// db_bench's key layout: the number big-endian in 8 bytes, then padding.
std::string Key(uint64_t i) {
  std::string key(8, '\0');
  for (int b = 0; b < 8; ++b) key[b] = static_cast<char>(i >> (56 - 8 * b));
  return key + "00000000";
}

FileRange Range(uint64_t from, uint64_t to, double keys = 0) {
  return FileRange{Key(from), Key(to), keys};
}

// Ten files of 1000 keys each, over keys 0 to 9999.
std::vector<FileRange> TenFiles() {
  std::vector<FileRange> files;
  for (uint64_t f = 0; f < 10; ++f) files.push_back(Range(1000 * f, 1000 * f + 999, 1000));
  return files;
}

TEST(ProbeShareTest, TheReferenceCoversItselfWhole) {
  EXPECT_DOUBLE_EQ(ProbeShare(TenFiles(), TenFiles()), 1.0);
  EXPECT_DOUBLE_EQ(ProbeShare(TenFiles(), {Range(0, 1u << 30)}), 1.0);
}

TEST(ProbeShareTest, WholeFilesCountTheirKeys) {
  EXPECT_DOUBLE_EQ(ProbeShare(TenFiles(), {Range(0, 4999)}), 0.5);
  EXPECT_DOUBLE_EQ(ProbeShare(TenFiles(), {Range(2000, 2999), Range(7000, 7999)}), 0.2);
  // A reference with more keys in one file weighs that file more.
  std::vector<FileRange> skewed = TenFiles();
  skewed[0].keys = 9000;  // half of the reference's 18000 keys
  EXPECT_DOUBLE_EQ(ProbeShare(skewed, {Range(0, 999)}), 0.5);
}

TEST(ProbeShareTest, PartOfAFileCountsItsShareOfTheFileRange) {
  EXPECT_NEAR(ProbeShare(TenFiles(), {Range(3000, 3499)}), 0.05, 0.0005);
  EXPECT_NEAR(ProbeShare(TenFiles(), {Range(3500, 4499)}), 0.1, 0.0005);
}

// Disjoint ranges that meet one reference file add up within it, and a
// range over several files takes its part of each.
TEST(ProbeShareTest, RangesAddUpWithinAFileAndAcrossFiles) {
  EXPECT_NEAR(ProbeShare(TenFiles(), {Range(3000, 3249), Range(3500, 3749)}), 0.05, 0.0005);
  EXPECT_NEAR(ProbeShare(TenFiles(), {Range(3500, 5499)}), 0.2, 0.0005);
  EXPECT_NEAR(ProbeShare(TenFiles(), {Range(3500, 3999), Range(4000, 4499), Range(9500, 9999)}),
              0.15, 0.0005);
  // Many calls on one reference: the same shares given its keys.
  const double keys = ReferenceKeys(TenFiles());
  EXPECT_DOUBLE_EQ(ProbeShare(TenFiles(), keys, {Range(3500, 5499)}),
                   ProbeShare(TenFiles(), {Range(3500, 5499)}));
}

TEST(ProbeShareTest, OverlappingRangesCountOnce) {
  EXPECT_DOUBLE_EQ(ProbeShare(TenFiles(), {Range(2000, 4999), Range(0, 2999)}), 0.5);
  EXPECT_DOUBLE_EQ(ProbeShare(TenFiles(), {Range(0, 9999), Range(0, 9999)}), 1.0);
}

TEST(ProbeShareTest, OutsideTheReferenceCountsNothing) {
  EXPECT_DOUBLE_EQ(ProbeShare(TenFiles(), {Range(20000, 30000)}), 0.0);
  EXPECT_DOUBLE_EQ(ProbeShare(TenFiles(), {}), 0.0);
  // No reference keys: every lookup.
  EXPECT_DOUBLE_EQ(ProbeShare({}, {Range(0, 10)}), 1.0);
}

}  // namespace
}  // namespace sstfilter
