// What a reader trusts with and without the checksum pass
// (ChecksumCheck::kEngineVerified, for engines that checksum the block
// holding a filter when they read it): the structure is checked either way.

#include <gtest/gtest.h>

#include <string>

#include "filters/cuckoo_filter.h"
#include "filters/reader_dispatch.h"
#include "format/hash.h"
#include "format/trailer.h"

namespace sstfilter {
namespace {

std::string Cuckoo(int n) {
  CuckooBuilder builder(12, CuckooVariant::kAuto);
  for (int i = 0; i < n; ++i) {
    const std::string key = "key" + std::to_string(i);
    builder.AddHash(KeyHash(key.data(), key.size()));
  }
  std::string filter;
  builder.Finish(&filter);
  return filter;
}

bool Parses(const std::string& bytes, ChecksumCheck check) {
  ParsedFilter f;
  return ParseFilter(bytes.data(), bytes.size(), &f, check);
}

TEST(TrailerTest, PayloadDamageIsCaughtOnlyByTheChecksum) {
  std::string filter = Cuckoo(1000);
  ASSERT_TRUE(Parses(filter, ChecksumCheck::kVerify));
  ASSERT_TRUE(Parses(filter, ChecksumCheck::kEngineVerified));
  filter[filter.size() / 2] ^= 0x01;
  EXPECT_FALSE(Parses(filter, ChecksumCheck::kVerify));
  // The engine's block checksum is what catches this one.
  EXPECT_TRUE(Parses(filter, ChecksumCheck::kEngineVerified));
}

TEST(TrailerTest, StructureIsCheckedWithoutTheChecksumToo) {
  const std::string good = Cuckoo(1000);
  const size_t t = good.size() - kTrailerSize;
  for (ChecksumCheck check : {ChecksumCheck::kVerify, ChecksumCheck::kEngineVerified}) {
    std::string bad = good;
    bad[t + 3] = static_cast<char>(0xF0 | (kFormatVersion + 1));  // unknown version
    EXPECT_FALSE(Parses(bad, check));
    bad = good;
    bad[t + 3] = 0x01;  // no marker
    EXPECT_FALSE(Parses(bad, check));
    bad = good;
    bad[t] = 0x7f;  // unknown kind
    EXPECT_FALSE(Parses(bad, check));
    bad = good;
    bad[t + 1] = 1;  // a fingerprint width the table's size does not fit
    EXPECT_FALSE(Parses(bad, check));
    EXPECT_FALSE(Parses(good.substr(1), check));            // truncated
    EXPECT_FALSE(Parses(good.substr(0, kTrailerSize - 1), check));
    EXPECT_FALSE(Parses("", check));
  }
}

TEST(TrailerTest, EveryReaderOfDamagedBytesStillAnswers) {
  std::string filter = Cuckoo(1000);
  filter[filter.size() / 3] ^= 0x40;
  // Trusted without the checksum: answers from the (damaged) table, and
  // reads nothing outside the bytes (the fuzz targets check that).
  WithFilterReader(filter.data(), filter.size(), ChecksumCheck::kEngineVerified,
                   [](const auto& reader) {
                     for (uint64_t h = 0; h < 1000; ++h) reader.MayMatch(h * 0x9e3779b97f4a7c15ULL);
                     return 0;
                   });
  // With the checksum: everything may match.
  EXPECT_TRUE(FilterMayMatch(filter.data(), filter.size(), 12345));
  const auto reader = NewFilterReader(filter.data(), filter.size());
  for (uint64_t h = 0; h < 1000; ++h) EXPECT_TRUE(reader->MayMatch(h * 0x9e3779b97f4a7c15ULL));
}

}  // namespace
}  // namespace sstfilter
