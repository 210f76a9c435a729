// The fuse reader's shape checks: a header, arity, length or wide-segment
// count that does not fit the payload fails ParseFilter and reads as
// "may match".

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "filters/filter.h"
#include "filters/fuse_filter.h"
#include "filters/fuse_kind.h"
#include "filters/fuse_reader.h"
#include "filters/reader_dispatch.h"
#include "format/hash.h"
#include "format/trailer.h"
#include "fuse_test_util.h"

namespace sstfilter {
namespace {

using test::Build;
using test::KindOf;
using test::RandomHashes;

// Re-seals `filter` after an edit: a valid checksum, so the shape checks
// are what decides.
void Reseal(std::string* filter) {
  const uint32_t sum = ContentChecksum(filter->data(), filter->size() - 4);
  for (int i = 0; i < 4; ++i) (*filter)[filter->size() - 4 + i] = static_cast<char>(sum >> (8 * i));
}

TEST(FuseReaderTest, DoubtfulShapesReadAsMayMatch) {
  const auto hashes = RandomHashes(5000, 23);
  FuseBuilder builder(10);
  const std::string good = Build(&builder, hashes);
  ASSERT_EQ(KindOf(good), kFuseKind);
  ParsedFilter parsed;
  ASSERT_TRUE(ParseFilter(good.data(), good.size(), &parsed));
  const size_t t = good.size() - kTrailerSize;
  auto rejected = [](std::string bad) {
    Reseal(&bad);
    ParsedFilter p;
    return !ParseFilter(bad.data(), bad.size(), &p) &&
           NewFilterReader(bad.data(), bad.size())->MayMatch(12345);
  };
  std::string bad = good;
  bad[t + 1] = 0;  // f = 0
  EXPECT_TRUE(rejected(bad));
  bad = good;
  bad[t + 1] = 33;  // f = 33
  EXPECT_TRUE(rejected(bad));
  for (int arity : {0, 2, 5, 255}) {
    bad = good;
    bad[t + 2] = static_cast<char>(arity);
    EXPECT_TRUE(rejected(bad)) << arity;
  }
  bad = good;
  bad[t + 2] = static_cast<char>(good[t + 2] == 3 ? 4 : 3);  // the other arity: length differs
  EXPECT_TRUE(rejected(bad));
  for (int byte : {8, 9, 10, 11, 12, 13, 14, 15}) {
    bad = good;
    bad[byte] = static_cast<char>(bad[byte] ^ 0x40);  // segment count, log, reserved
    EXPECT_TRUE(rejected(bad)) << byte;
  }
  bad = good;
  bad[12] = 19;  // segment log over 18
  EXPECT_TRUE(rejected(bad));
  bad = good;
  bad.erase(100, 1);  // one byte short
  EXPECT_TRUE(rejected(bad));
  bad = good;
  bad.insert(100, 1, '\0');  // one byte long
  EXPECT_TRUE(rejected(bad));
  bad = std::string(kFuseHeaderSize, '\0') + good.substr(t);  // header only
  EXPECT_TRUE(rejected(bad));
  // The seed is any value: another seed reads, it just answers differently.
  bad = good;
  bad[0] = static_cast<char>(bad[0] ^ 1);
  Reseal(&bad);
  EXPECT_TRUE(ParseFilter(bad.data(), bad.size(), &parsed));
}

// A hand-made payload: 1 segment of 2^1 slots, 3-wise (3 segments, 6
// slots), `wide` of them (f+1)-bit.
std::string HandMade(int f, uint64_t wide, size_t array_bytes) {
  std::string filter(kFuseHeaderSize + array_bytes, '\0');
  filter[8] = 1;   // segments
  filter[12] = 1;  // log
  filter[13] = static_cast<char>(wide);
  Trailer trailer;
  trailer.kind = kFuseKind;
  trailer.param_a = static_cast<uint8_t>(f);
  trailer.param_b = 3;
  AppendTrailer(trailer, 0, &filter);
  return filter;
}

TEST(FuseReaderTest, WideSegmentsAreCheckedAgainstTheShape) {
  ParsedFilter parsed;
  // f = 8: 6 x 8 bits + 1 bit per wide slot, 2 per segment.
  for (uint64_t wide : {0, 1, 2}) {
    const std::string ok = HandMade(8, wide, (48 + 2 * wide + 7) / 8);
    ASSERT_TRUE(ParseFilter(ok.data(), ok.size(), &parsed)) << wide;
    Trailer trailer;
    size_t payload_size = 0;
    ASSERT_TRUE(ParseTrailer(ok.data(), ok.size(), &trailer, &payload_size));
    FuseLayout layout;
    ASSERT_TRUE(FuseDescriptor::Parse(trailer, ok.data(), payload_size, &layout));
    EXPECT_EQ(layout.wide_segments, wide);
  }
  // All 3 segments wide: 54 bits, the same 7 bytes, but never written.
  const std::string all = HandMade(8, 3, 7);
  EXPECT_FALSE(ParseFilter(all.data(), all.size(), &parsed));
  EXPECT_TRUE(NewFilterReader(all.data(), all.size())->MayMatch(1));
  // No 33-bit slots.
  EXPECT_TRUE(ParseFilter(HandMade(32, 0, 24).data(), 24 + kFuseHeaderSize + kTrailerSize, &parsed));
  const std::string wide32 = HandMade(32, 1, 25);
  EXPECT_FALSE(ParseFilter(wide32.data(), wide32.size(), &parsed));
}

}  // namespace
}  // namespace sstfilter
