// Save/Load of DynamicCuckooFilter: the byte layout is in docs/format.md
// ("Dynamic cuckoo filter"), pinned by golden bytes
// (tests/dynamic/growing_format_test.cc) and golden files of the older
// versions (tests/dynamic/dynamic_legacy_test.cc). Save writes version 5
// (dynamic/growing_format.cc) or gives back the bytes a file of versions 1
// to 3 was loaded from; Load dispatches on the version byte. Load accepts
// only what Save can produce, so a damaged or foreign input is kCorrupt,
// never a filter that misses keys.

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dynamic/dynamic_cuckoo_rep.h"
#include "dynamic/file_header.h"
#include "format/coding.h"
#include "format/hash.h"
#include "sstfilter/dynamic_cuckoo.h"

namespace sstfilter {

namespace {

// Checked mode's multiset: N, then N (hash, copies), hashes ascending.
void SaveExact(const std::unordered_map<uint64_t, uint32_t>& exact, std::string* out) {
  std::vector<std::pair<uint64_t, uint32_t>> sorted(exact.begin(), exact.end());
  std::sort(sorted.begin(), sorted.end());
  PutFixed64(out, sorted.size());
  for (const auto& e : sorted) {
    PutFixed64(out, e.first);
    PutFixed32(out, e.second);
  }
}

// What SaveExact wrote, for a filter of `size` keys that holds each.
bool LoadExact(ByteReader* c, const DynamicCuckooFilter& f, uint64_t size,
               std::unordered_map<uint64_t, uint32_t>* exact) {
  uint64_t n;
  if (!c->U64(&n) || n > c->left() / 12) return false;
  uint64_t listed_copies = 0;
  uint64_t prev = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t hash = 0;
    uint32_t count = 0;
    if (!c->U64(&hash) || !c->U32(&count)) return false;
    if (count == 0 || (i > 0 && hash <= prev)) return false;
    // A checked filter holds every key it lists.
    if (!f.ContainsHash(hash)) return false;
    (*exact)[hash] = count;
    listed_copies += count;
    prev = hash;
  }
  return listed_copies == size;
}

}  // namespace

void DynamicCuckooFilter::Save(std::string* out) const {
  const dynamic_cuckoo::FilterRep& r = *rep_;
  if (r.legacy != nullptr) {
    out->append(r.legacy->bytes());
    return;
  }
  const size_t begin = out->size();
  r.growing->SaveTo(out);
  if (r.options.checked) SaveExact(r.exact, out);
  PutFixed32(out, ContentChecksum(out->data() + begin, out->size() - begin));
}

DynamicStatus DynamicCuckooFilter::Load(std::string_view bytes,
                                        std::unique_ptr<DynamicCuckooFilter>* out) {
  constexpr DynamicStatus kCorrupt = DynamicStatus::kCorrupt;
  if (bytes.size() < 12) return kCorrupt;
  const std::string_view body = bytes.substr(0, bytes.size() - 4);
  if (ContentChecksum(body.data(), body.size()) != DecodeFixed32(body.data() + body.size())) {
    return kCorrupt;
  }
  const uint8_t version = static_cast<uint8_t>(bytes[4]);
  if (std::memcmp(bytes.data(), dynamic_cuckoo::kFileMagic, 4) != 0) return kCorrupt;
  std::unique_ptr<DynamicCuckooFilter> f(new DynamicCuckooFilter);
  dynamic_cuckoo::FilterRep& r = *f->rep_;
  size_t used = 0;
  uint64_t size = 0;
  if (version == dynamic_cuckoo::kGrowingVersion) {
    const DynamicStatus s = dynamic_cuckoo::GrowingFilter::LoadFrom(body, &used, &r.growing);
    if (s != DynamicStatus::kOk) return s;
    r.options = r.growing->options();
    size = r.growing->Size();
    f->growing_ = r.growing.get();
  } else if (version >= 1 && version <= dynamic_cuckoo::kLastLegacyVersion) {
    const DynamicStatus s = dynamic_cuckoo::LegacyReader::Load(bytes, &used, &r.legacy);
    if (s != DynamicStatus::kOk) return s;
    r.options = r.legacy->options();
    size = r.legacy->Size();
  } else {
    return kCorrupt;
  }
  ByteReader c(body.substr(used));
  if (r.options.checked && !LoadExact(&c, *f, size, &r.exact)) return kCorrupt;
  if (c.left() != 0) return kCorrupt;
  *out = std::move(f);
  return DynamicStatus::kOk;
}

}  // namespace sstfilter
