#include "filters/reader_dispatch.h"

#include <type_traits>

#include "filters/filter.h"
#include "format/trailer.h"

namespace sstfilter {

bool ParseFilter(const char* data, size_t size, ParsedFilter* f, ChecksumCheck check) {
  // Trusted: any reader but the one for doubtful bytes.
  auto trusted = [](const auto& reader) {
    return !std::is_same<std::decay_t<decltype(reader)>, AlwaysMatchReader>::value;
  };
  return dispatch_internal::WithParsedFilter(data, size, check, f, trusted);
}

bool ParseVersion1Filter(const char* data, size_t size, ParsedFilter* f,
                         ChecksumCheck check) {
  Trailer trailer;
  if (!ParseTrailer(data, size, &trailer, &f->payload_size, check)) return false;
  f->kind = trailer.kind;
  f->param_a = trailer.param_a;
  f->param_b = trailer.param_b;
  auto parsed = [](const auto&) { return true; };
  auto not_version1 = [] { return false; };
  // ParseTrailer has checked the checksum if `check` asks for it.
  return dispatch_internal::WithKindReader<bool>(RegisteredKinds{}, trailer, data, size,
                                                 f->payload_size, ChecksumCheck::kEngineVerified,
                                                 parsed, not_version1);
}

std::unique_ptr<FilterReader> NewFilterReader(const char* data, size_t size) {
  return WithFilterReader(data, size, ChecksumCheck::kVerify, [](const auto& reader) {
    using Reader = std::decay_t<decltype(reader)>;
    return std::unique_ptr<FilterReader>(new Reader(reader));
  });
}

bool FilterMayMatch(const char* data, size_t size, uint64_t hash) {
  return WithFilterReader(data, size, ChecksumCheck::kVerify,
                          [hash](const auto& reader) { return reader.MayMatch(hash); });
}

}  // namespace sstfilter
