#include "guard/guard_file.h"

#include "format/coding.h"
#include "format/hash.h"

namespace sstfilter {
namespace {

constexpr char kMagic[8] = {'S', 'S', 'T', 'F', 'G', 'R', 'D', '1'};
constexpr uint32_t kVersion = 1;
constexpr uint64_t kChecksumSeed = 0x6775617264763031ULL;  // "guardv01"

uint64_t Checksum(const char* data, size_t size) {
  return XXH3_64bits_withSeed(data, size, kChecksumSeed);
}

void PutBytes(std::string* out, std::string_view bytes) {
  PutFixed64(out, bytes.size());
  out->append(bytes.data(), bytes.size());
}

}  // namespace

void EncodeGuardFile(const GuardFileContents& c, std::string* out) {
  const size_t start = out->size();
  out->append(kMagic, sizeof(kMagic));
  PutFixed32(out, kVersion);
  PutFixed64(out, c.sequence);
  PutBytes(out, c.db_identity);
  PutFixed64(out, c.sst_files.size());
  for (uint64_t f : c.sst_files) PutFixed64(out, f);
  PutFixed32(out, static_cast<uint32_t>(c.families.size()));
  for (const auto& f : c.families) {
    PutFixed32(out, f.id);
    PutBytes(out, f.name);
    PutBytes(out, f.filter);
  }
  PutFixed64(out, Checksum(out->data() + start, out->size() - start));
}

bool DecodeGuardFile(std::string_view bytes, GuardFileContents* c, std::string* why) {
  if (bytes.size() < sizeof(kMagic) + 4 + 8 ||
      bytes.compare(0, sizeof(kMagic), std::string_view(kMagic, sizeof(kMagic))) != 0) {
    *why = "not a guard file";
    return false;
  }
  const size_t body = bytes.size() - 8;
  if (Checksum(bytes.data(), body) != DecodeFixed64(bytes.data() + body)) {
    *why = "checksum mismatch (damaged or truncated)";
    return false;
  }
  ByteReader r(bytes.substr(sizeof(kMagic), body - sizeof(kMagic)));
  uint32_t version;
  if (!r.U32(&version) || version != kVersion) {
    *why = "unknown guard file version";
    return false;
  }
  GuardFileContents out;
  uint64_t files;
  uint32_t families;
  bool ok = r.U64(&out.sequence) && r.LengthPrefixed(&out.db_identity) && r.U64(&files) &&
            files <= body / 8;
  for (uint64_t i = 0; ok && i < files; ++i) {
    out.sst_files.emplace_back();
    ok = r.U64(&out.sst_files.back());
  }
  ok = ok && r.U32(&families) && families <= body;
  for (uint32_t i = 0; ok && i < families; ++i) {
    out.families.emplace_back();
    auto& f = out.families.back();
    ok = r.U32(&f.id) && r.LengthPrefixed(&f.name) && r.LengthPrefixed(&f.filter);
  }
  if (!ok || !r.empty()) {
    *why = "malformed guard file";
    return false;
  }
  *c = std::move(out);
  return true;
}

}  // namespace sstfilter
