#include "format/trailer.h"

#include "format/coding.h"
#include "format/hash.h"

namespace sstfilter {

void AppendTrailer(const Trailer& trailer, size_t payload_start,
                   std::string* dst) {
  dst->push_back(static_cast<char>(trailer.kind));
  dst->push_back(static_cast<char>(trailer.param_a));
  dst->push_back(static_cast<char>(trailer.param_b));
  dst->push_back(static_cast<char>(kMarkerNibble | kFormatVersion));
  PutFixed32(dst, ContentChecksum(dst->data() + payload_start,
                                  dst->size() - payload_start));
}

bool ParseTrailer(const char* data, size_t size, Trailer* trailer,
                  size_t* payload_size, ChecksumCheck check) {
  if (data == nullptr || size < kTrailerSize) return false;
  const char* t = data + size - kTrailerSize;
  const auto version_byte = static_cast<uint8_t>(t[3]);
  if (version_byte != (kMarkerNibble | kFormatVersion)) return false;
  if (check == ChecksumCheck::kVerify && !TrailerChecksumMatches(data, size)) return false;
  trailer->kind = static_cast<FilterKind>(static_cast<uint8_t>(t[0]));
  trailer->param_a = static_cast<uint8_t>(t[1]);
  trailer->param_b = static_cast<uint8_t>(t[2]);
  *payload_size = size - kTrailerSize;
  return true;
}

bool TrailerChecksumMatches(const char* data, size_t size) {
  return DecodeFixed32(data + size - 4) == ContentChecksum(data, size - 4);
}

}  // namespace sstfilter
