// The guard file's bytes (docs/format.md, "Guard file"), pinned, and its
// decoder's refusals.

#include <gtest/gtest.h>

#include <string>

#include "guard/guard_file.h"

namespace sstfilter {
namespace {

GuardFileContents Sample() {
  GuardFileContents c;
  c.sequence = 0x0102030405060708ULL;
  c.db_identity = "id";
  c.sst_files = {7, 9};
  c.families.push_back({3, "cf", "FLT"});
  return c;
}

std::string Hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char ch : s) {
    out += d[ch >> 4];
    out += d[ch & 15];
  }
  return out;
}

TEST(GuardFileTest, GoldenBytes) {
  std::string bytes;
  EncodeGuardFile(Sample(), &bytes);
  const std::string body =
      "5353544647524431"                  // magic "SSTFGRD1"
      "01000000"                          // version 1
      "0807060504030201"                  // sequence
      "0200000000000000" "6964"           // identity "id"
      "0200000000000000"                  // 2 SST files
      "0700000000000000" "0900000000000000"
      "01000000"                          // 1 family
      "03000000"                          // id 3
      "0200000000000000" "6366"           // "cf"
      "0300000000000000" "464c54";        // filter "FLT"
  ASSERT_EQ(Hex(bytes.substr(0, bytes.size() - 8)), body);
  // XXH3-64, seed "guardv01", of the bytes above, little-endian (computed
  // with xxhash.h directly, not with the encoder).
  EXPECT_EQ(Hex(bytes.substr(bytes.size() - 8)), "2b763bc0abe70dec");
}

TEST(GuardFileTest, RoundTripAndRefusals) {
  std::string bytes;
  EncodeGuardFile(Sample(), &bytes);
  GuardFileContents back;
  std::string why;
  ASSERT_TRUE(DecodeGuardFile(bytes, &back, &why)) << why;
  EXPECT_EQ(back.sequence, Sample().sequence);
  EXPECT_EQ(back.db_identity, "id");
  EXPECT_EQ(back.sst_files, Sample().sst_files);
  ASSERT_EQ(back.families.size(), 1u);
  EXPECT_EQ(back.families[0].id, 3u);
  EXPECT_EQ(back.families[0].name, "cf");
  EXPECT_EQ(back.families[0].filter, "FLT");
  for (size_t len = 0; len < bytes.size(); ++len) {
    EXPECT_FALSE(DecodeGuardFile(bytes.substr(0, len), &back, &why)) << len;
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = bytes;
      bad[i] ^= static_cast<char>(1 << bit);
      EXPECT_FALSE(DecodeGuardFile(bad, &back, &why)) << i << " " << bit;
    }
  }
  EXPECT_FALSE(DecodeGuardFile(bytes + "x", &back, &why));
}

}  // namespace
}  // namespace sstfilter
