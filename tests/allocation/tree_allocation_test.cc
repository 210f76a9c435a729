// PlanForTree on trees given as numbers: it spends what the budget spends
// on the tree's files, never less, favours the small runs, weighs a run by
// the share of the key range it covers, and plans an append to the tree as
// a file of the bottom level.

#include "allocation/tree_allocation.h"
#include "filters/cuckoo_kind.h"
#include "filters/fuse_kind.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace sstfilter {
namespace {

// L0 files of `l0_keys` each, then levels from L(7 - sizes.size()) down to
// L6 of sizes[i] keys in files of `keys_per_file`.
TreeShape Tree(std::vector<double> l0_keys, std::vector<double> sizes, double keys_per_file) {
  TreeShape tree;
  tree.l0_file_keys = l0_keys;
  tree.level_keys.assign(7, 0);
  tree.level_files.assign(7, 0);
  for (size_t i = 0; i < sizes.size(); ++i) {
    const size_t lv = 7 - sizes.size() + i;
    tree.level_keys[lv] = sizes[i];
    tree.level_files[lv] = static_cast<uint64_t>(sizes[i] / keys_per_file + 0.5);
  }
  tree.smallest_key = "k100";
  tree.largest_key = "k899";
  return tree;
}

FileFacts Compacted(int level, size_t keys, const std::string& first_key) {
  FileFacts f;
  f.level = level;
  f.num_keys = keys;
  f.first_key = first_key;
  f.last_key = first_key + "z";
  return f;
}

// Bytes the tree's files get from PlanForTree, over what the budget gives
// them. A level's files are taken with kFirstKeys first keys (the bottom
// level mixes two sizes by first key).
constexpr int kFirstKeys = 200;

double Spend(const TreeShape& tree, const FilterSpec& budget) {
  double planned = 0, uniform = 0;
  for (size_t lv = 1; lv < tree.level_keys.size(); ++lv) {
    if (tree.level_keys[lv] == 0) continue;
    const double files = static_cast<double>(tree.level_files[lv]);
    const auto per_file = static_cast<size_t>(tree.level_keys[lv] / files);
    for (int i = 0; i < kFirstKeys; ++i) {
      FileFacts f = Compacted(static_cast<int>(lv), per_file, "k" + std::to_string(i));
      if (lv < tree.level_ranges.size() && !tree.level_ranges[lv].empty()) {
        // The level's own files, where the tree lists them.
        const auto& ranges = tree.level_ranges[lv];
        f.first_key = ranges[static_cast<size_t>(i) % ranges.size()].smallest;
        f.last_key = ranges[static_cast<size_t>(i) % ranges.size()].largest;
      }
      planned += ExpectedRunCost(PlanForTree(f, tree, budget), tree.level_keys[lv] / kFirstKeys,
                                 files / kFirstKeys)
                     .bytes;
    }
    uniform += ExpectedRunCost(budget, tree.level_keys[lv], files).bytes;
  }
  for (double keys : tree.l0_file_keys) {
    TreeShape before = tree;  // the flushed file is not in the tree yet
    before.l0_file_keys.pop_back();
    FileFacts flushed = Compacted(0, static_cast<size_t>(keys), "k5");
    planned += ExpectedRunCost(PlanForTree(flushed, before, budget), keys, 1).bytes;
    uniform += ExpectedRunCost(budget, keys, 1).bytes;
  }
  return planned / uniform;
}

TEST(TreeAllocationTest, SpendsTheBudgetsBytesNeverFewer) {
  const std::vector<TreeShape> trees = {
      Tree({3000, 3000}, {30000, 300000, 3000000}, 9000),  // static targets, x10
      Tree({}, {2000, 8000, 32000, 128000, 512000}, 2500),  // x4, small files
      Tree({40000}, {160000, 1600000}, 40000),              // two levels and L0
  };
  for (FilterType type : {FilterType::kBloom, kCuckooType, kFuseType}) {
    for (double bits : {8.0, 10.0, 16.0}) {
      for (size_t t = 0; t < trees.size(); ++t) {
        SCOPED_TRACE(std::string(FilterTypeName(type)) + " " + std::to_string(bits) + " tree " +
                     std::to_string(t));
        const double spend = Spend(trees[t], FilterSpec{type, bits});
        // The window PlanForTree aims for, give or take the two first keys'
        // share of the bottom level's two sizes.
        EXPECT_GE(spend, 0.999);
        EXPECT_LE(spend, 1.012);
      }
    }
  }
}

TEST(TreeAllocationTest, SmallRunsGetMoreBitsThanTheBottom) {
  const TreeShape tree = Tree({3000, 3000}, {30000, 300000, 3000000}, 9000);
  const FilterSpec budget{kCuckooType, 10};
  const FilterSpec l4 = PlanForTree(Compacted(4, 9000, "k3"), tree, budget);
  const FilterSpec l5 = PlanForTree(Compacted(5, 9000, "k3"), tree, budget);
  const FilterSpec l6 = PlanForTree(Compacted(6, 9000, "k3"), tree, budget);
  EXPECT_GT(l4.bits_per_key, l5.bits_per_key);
  EXPECT_GT(l5.bits_per_key, l6.bits_per_key);
  EXPECT_LT(l6.bits_per_key, 10);
  EXPECT_GT(l4.bits_per_key, 13);
}

TEST(TreeAllocationTest, OneRunKeepsTheBudget) {
  const TreeShape tree = Tree({}, {3000000}, 9000);
  const FilterSpec budget{kFuseType, 10};
  const FilterSpec spec = PlanForTree(Compacted(6, 9000, "k3"), tree, budget);
  EXPECT_EQ(spec.type, budget.type);
  EXPECT_EQ(spec.bits_per_key, budget.bits_per_key);
}

// A backlog: L5 at three times its target. Its files, and the bottom's,
// are planned as for the tree settled (L5 at target, the rest in L6).
TEST(TreeAllocationTest, ALevelOverItsTargetIsPlannedAsSettled) {
  const FilterSpec budget{kCuckooType, 10};
  TreeShape backlog = Tree({}, {30000, 900000, 3000000}, 9000);
  backlog.level_target_keys = {0, 0, 0, 0, 30000, 300000, 0};
  TreeShape settled = Tree({}, {30000, 300000, 3600000}, 9000);
  for (int level : {4, 5, 6}) {
    const FilterSpec a = PlanForTree(Compacted(level, 9000, "k3"), backlog, budget);
    const FilterSpec b = PlanForTree(Compacted(level, 9000, "k3"), settled, budget);
    EXPECT_EQ(a.type, b.type) << "L" << level;
    EXPECT_NEAR(a.bits_per_key, b.bits_per_key, 0.07) << "L" << level;
  }
  // Unsettled, the swollen L5 would get fewer bits.
  backlog.level_target_keys.clear();
  EXPECT_LT(PlanForTree(Compacted(5, 9000, "k3"), backlog, budget).bits_per_key,
            PlanForTree(Compacted(5, 9000, "k3"), settled, budget).bits_per_key - 0.5);
}

// A last level that is only starting to fill: the largest run (L4 here)
// takes what the others leave, and the small last level gets more bits.
TEST(TreeAllocationTest, TheLargestRunTakesWhatTheOthersLeave) {
  const FilterSpec budget{FilterType::kBloom, 10};
  const TreeShape tree = Tree({}, {30000, 300000, 3000000, 60000}, 9000);  // L3-L6
  const FilterSpec l5 = PlanForTree(Compacted(5, 9000, "k3"), tree, budget);
  const FilterSpec l6 = PlanForTree(Compacted(6, 9000, "k3"), tree, budget);
  EXPECT_LT(l5.bits_per_key, 10);
  EXPECT_GT(l6.bits_per_key, l5.bits_per_key + 3);
  EXPECT_GE(Spend(tree, budget), 0.999);
}

// Files of `keys_per_file` keys each, from key number `from` on, keys
// spaced `step` apart, each named "k" and 8 digits.
std::vector<FileRange> Files(int count, int from, int step, double keys_per_file) {
  std::vector<FileRange> files;
  char first[16], last[16];
  for (int i = 0; i < count; ++i) {
    const int lo = from + i * step * static_cast<int>(keys_per_file);
    std::snprintf(first, sizeof(first), "k%08d", lo);
    std::snprintf(last, sizeof(last), "k%08d", lo + step * static_cast<int>(keys_per_file) - 1);
    files.push_back(FileRange{first, last, keys_per_file});
  }
  return files;
}

// A level whose files hold a tenth of the key range is probed by a tenth
// of the lookups: its files get fewer extra bits than those of a level as
// large over the whole range, and the bottom, which every lookup probes,
// more.
TEST(TreeAllocationTest, ARunOverPartOfTheKeyRangeGetsFewerBits) {
  const FilterSpec budget{FilterType::kBloom, 10};
  TreeShape whole = Tree({}, {30000, 300000, 3000000}, 10000);  // L4-L6
  whole.level_ranges.resize(7);
  whole.level_ranges[4] = Files(3, 0, 100, 10000);    // keys 0 to 2,999,999
  whole.level_ranges[5] = Files(30, 0, 10, 10000);
  whole.level_ranges[6] = Files(300, 0, 1, 10000);
  TreeShape tenth = whole;
  tenth.level_ranges[4] = Files(3, 0, 10, 10000);     // keys 0 to 299,999
  // A file of `level` as the tree lists it (or, without ranges, the whole's).
  const auto bits = [&budget, &whole](const TreeShape& tree, int level) {
    const FileRange& r = (tree.level_ranges.empty() ? whole : tree).level_ranges[level][1];
    FileFacts f = Compacted(level, 10000, r.smallest);
    f.last_key = r.largest;
    return PlanForTree(f, tree, budget).bits_per_key;
  };
  EXPECT_LT(bits(tenth, 4), bits(whole, 4) - 2);
  EXPECT_GE(bits(tenth, 6), bits(whole, 6));
  EXPECT_GE(Spend(tenth, budget), 0.999);
  EXPECT_LE(Spend(tenth, budget), 1.012);
  // Without ranges, as over the whole range.
  TreeShape unknown = whole;
  unknown.level_ranges.clear();
  EXPECT_EQ(bits(unknown, 4), bits(whole, 4));
}

// Two files of one level, of as many keys, one over ten times the other's
// stretch of the key range: the one that more lookups probe gets more bits.
// (A file that RocksDB moved down whole keeps its density, and so a filter
// that suits it.)
TEST(TreeAllocationTest, AFileIsPlannedAtItsOwnKeyDensity) {
  const FilterSpec budget{FilterType::kBloom, 10};
  TreeShape tree = Tree({}, {30000, 300000, 3000000}, 10000);  // L4-L6
  tree.level_ranges.resize(7);
  tree.level_ranges[4] = Files(3, 0, 100, 10000);
  tree.level_ranges[5] = Files(30, 0, 10, 10000);
  tree.level_ranges[6] = Files(300, 0, 1, 10000);
  const auto bits = [&](const FileRange& r) {
    FileFacts f = Compacted(5, 10000, r.smallest);
    f.last_key = r.largest;
    return PlanForTree(f, tree, budget).bits_per_key;
  };
  const double sparse = bits(Files(1, 0, 100, 10000)[0]);
  const double dense = bits(Files(1, 0, 10, 10000)[0]);
  EXPECT_GT(sparse, dense + 2);
}

// A level of files of two densities: planned file by file, it still
// spends the budget, never less (planned at its average density, its files
// would spend less than the level's plan).
TEST(TreeAllocationTest, ALevelOfMixedDensitiesSpendsTheBudget) {
  TreeShape tree = Tree({}, {30000, 300000, 3000000}, 10000);  // L4-L6
  tree.level_ranges.resize(7);
  tree.level_ranges[4] = Files(3, 0, 100, 10000);
  tree.level_ranges[5] = Files(20, 0, 5, 10000);  // keys 0 to 999,999
  const std::vector<FileRange> sparse = Files(10, 1000000, 20, 10000);
  tree.level_ranges[5].insert(tree.level_ranges[5].end(), sparse.begin(), sparse.end());
  tree.level_ranges[6] = Files(300, 0, 1, 10000);
  for (FilterType type : {FilterType::kBloom, kCuckooType}) {
    SCOPED_TRACE(FilterTypeName(type));
    const double spend = Spend(tree, FilterSpec{type, 10});
    EXPECT_GE(spend, 0.999);
    EXPECT_LE(spend, 1.012);
  }
}

TEST(TreeAllocationTest, AnAppendIsPlannedAsABottomLevelFile) {
  const TreeShape tree = Tree({3000}, {30000, 300000, 3000000}, 9000);
  const FilterSpec budget{kCuckooType, 10};
  FileFacts past_the_end = Compacted(0, 9000, "k950");
  FileFacts before_the_start = Compacted(0, 9000, "k0");
  FileFacts inside = Compacted(0, 9000, "k500");
  for (const FileFacts& f : {past_the_end, before_the_start}) {
    const FilterSpec bottom = PlanForTree(Compacted(6, 9000, f.first_key), tree, budget);
    const FilterSpec spec = PlanForTree(f, tree, budget);
    EXPECT_EQ(spec.type, bottom.type);
    EXPECT_EQ(spec.bits_per_key, bottom.bits_per_key);
  }
  // A flush among the tree's keys is an L0 run of its own: more bits.
  EXPECT_GT(PlanForTree(inside, tree, budget).bits_per_key,
            PlanForTree(Compacted(6, 9000, "k500"), tree, budget).bits_per_key + 3);
}

}  // namespace
}  // namespace sstfilter
