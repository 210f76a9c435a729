// KeyMap (plugin/range/key_map.h): monotone over every byte string, strict
// where it says so, and keys of the three shapes stay apart.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "range/key_map.h"
#include "range_test_util.h"

namespace sstfilter {
namespace {

using test::Shape;

// Random strings over a small alphabet and lengths, so that prefixes,
// bytes outside the table's alphabets and shorter keys all occur.
std::string RandomString(uint64_t* state, int max_len, char lo, char hi) {
  std::string s(test::SplitMix(state) % (max_len + 1), ' ');
  for (char& c : s) c = static_cast<char>(lo + test::SplitMix(state) % (hi - lo + 1));
  return s;
}

TEST(KeyMapTest, MonotoneAndStrictOverArbitraryStrings) {
  uint64_t state = 1;
  for (int round = 0; round < 50; ++round) {
    KeyMapBuilder b;
    std::vector<std::string> keys;
    for (int i = 0; i < 200; ++i) keys.push_back(RandomString(&state, 6, 'c', 'h'));
    for (const auto& k : keys) b.Add(k);
    const KeyMap map = b.Build();
    std::vector<std::string> probes = keys;
    for (int i = 0; i < 400; ++i) probes.push_back(RandomString(&state, 8, 'a', 'j'));
    std::sort(probes.begin(), probes.end());
    for (size_t i = 1; i < probes.size(); ++i) {
      ASSERT_LE(map.Map(probes[i - 1]).value, map.Map(probes[i]).value)
          << probes[i - 1] << " < " << probes[i];
    }
    // Strict: every key below a strict probe maps below it.
    for (const auto& p : probes) {
      const KeyMap::Mapped m = map.Map(p);
      if (!m.strict) continue;
      for (const auto& k : keys) {
        if (k < p) {
          ASSERT_LT(map.Map(k).value, m.value) << k << " < " << p;
        }
      }
    }
    // Distinct keys within the window stay distinct.
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    for (size_t i = 1; i < keys.size(); ++i) {
      ASSERT_LT(map.Map(keys[i - 1]).value, map.Map(keys[i]).value);
    }
  }
}

TEST(KeyMapTest, SharedPrefixesCostNothingAndIdsKeepTheirDistances) {
  for (Shape shape : {Shape::kBigEndian64, Shape::kUserDecimal, Shape::kTablePrefixed}) {
    SCOPED_TRACE(test::ShapeName(shape));
    KeyMapBuilder b;
    uint64_t state = 7;
    std::vector<uint64_t> ids;
    for (int i = 0; i < 1000; ++i) ids.push_back(test::SplitMix(&state) % test::MaxId(shape));
    for (uint64_t id : ids) b.Add(test::Key(shape, id));
    const KeyMap map = b.Build();
    // A key one id after another maps one to a few values after it (a
    // decimal carry or a byte's wrap can add a little), never onto it.
    for (uint64_t id : ids) {
      if (id + 1 > test::MaxId(shape)) continue;
      const auto here = map.Map(test::Key(shape, id)).value;
      const auto next = map.Map(test::Key(shape, id + 1)).value;
      ASSERT_GT(next, here);
      ASSERT_LE(next - here, 300u) << id;
    }
  }
  // "user" + 12 digits: the prefix drops out and the digits count in base
  // 10 where they span 0-9: at most 10^12 values.
  KeyMapBuilder b;
  for (uint64_t id = 0; id < 1000000000000ULL; id += 999999937ULL) {
    b.Add(test::Key(Shape::kUserDecimal, id));
  }
  EXPECT_LE(b.Build().universe(), Uint128{1000000000000ULL});
}

TEST(KeyMapTest, LongKeysShareTheirWindowsValue) {
  KeyMapBuilder b;
  const std::string base(KeyMap::kWindow, 'k');
  b.Add(base + "a");
  b.Add(base + "z");
  const KeyMap map = b.Build();
  EXPECT_EQ(map.Map(base + "a").value, map.Map(base + "z").value);
  EXPECT_FALSE(map.Map(base + "b").strict);
}

}  // namespace
}  // namespace sstfilter
