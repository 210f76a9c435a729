// Save/Load of the dynamic cuckoo filter's format version 5 (GrowingFilter):
// the layout is in docs/format.md, pinned by golden bytes
// (tests/dynamic/growing_format_test.cc). Load accepts only what Save can
// write: the options as Create checks them, the table's shape as they
// allow it, every slot; a damaged input is kCorrupt, never a filter that
// misses keys.

#include <cstring>
#include <new>
#include <vector>

#include "dynamic/file_header.h"
#include "dynamic/growing_filter.h"
#include "format/coding.h"

namespace sstfilter {
namespace dynamic_cuckoo {

namespace {

constexpr uint8_t kFlagChecked = 1;
constexpr size_t kHeaderBytes = 64;
constexpr uint64_t kMaxBuckets = uint64_t{1} << 39;


}  // namespace

void GrowingFilter::SaveTo(std::string* out) const {
  const GrowingTable& t = *table_;
  out->append(kFileMagic, 4);
  out->push_back(static_cast<char>(kGrowingVersion));
  out->push_back(static_cast<char>(options_.checked ? kFlagChecked : 0));
  out->append(2, '\0');
  PutFixed64(out, DoubleBits(options_.target_fpr));
  PutFixed64(out, options_.initial_capacity);
  PutFixed64(out, options_.expected_max_keys);
  PutFixed64(out, Size());
  PutFixed64(out, DoubleBits(options_.first_member_fpr_share));
  PutFixed64(out, DoubleBits(options_.first_member_max_load));
  out->push_back(static_cast<char>(t.level()));
  out->push_back(static_cast<char>(t.slots()));
  out->push_back(static_cast<char>(t.fp_bits()));
  out->append(5, '\0');
  for (uint64_t i = 0; i < t.num_words(); ++i) PutFixed64(out, t.Word(i));
  const std::vector<CopyCounts::Entry> extra = extra_.Sorted();
  PutFixed64(out, extra.size());
  for (const CopyCounts::Entry& e : extra) {
    PutFixed64(out, ExtraI1(e.a));
    PutFixed64(out, ExtraPayload(e.a, e.b));
    PutFixed32(out, e.count);
  }
}

DynamicStatus GrowingFilter::LoadFrom(std::string_view bytes, size_t* consumed,
                                      std::unique_ptr<GrowingFilter>* out) {
  constexpr DynamicStatus kCorrupt = DynamicStatus::kCorrupt;
  ByteReader c(bytes);
  const char* h;
  if (!c.Take(kHeaderBytes, &h)) return kCorrupt;
  const uint8_t flags = static_cast<uint8_t>(h[5]);
  if (std::memcmp(h, kFileMagic, 4) != 0 || static_cast<uint8_t>(h[4]) != kGrowingVersion ||
      (flags & ~kFlagChecked) != 0 || h[6] != 0 || h[7] != 0) {
    return kCorrupt;
  }
  for (int i = 59; i < 64; ++i) {
    if (h[i] != 0) return kCorrupt;
  }
  DynamicCuckooOptions options;
  options.target_fpr = BitsDouble(DecodeFixed64(h + 8));
  options.initial_capacity = DecodeFixed64(h + 16);
  options.expected_max_keys = DecodeFixed64(h + 24);
  options.checked = (flags & kFlagChecked) != 0;
  const uint64_t size = DecodeFixed64(h + 32);
  options.first_member_fpr_share = BitsDouble(DecodeFixed64(h + 40));
  options.first_member_max_load = BitsDouble(DecodeFixed64(h + 48));
  const unsigned level = static_cast<uint8_t>(h[56]);
  const unsigned slots = static_cast<uint8_t>(h[57]);
  const unsigned fp_bits = static_cast<uint8_t>(h[58]);
  std::unique_ptr<GrowingFilter> f;
  if (Create(options, &f) != DynamicStatus::kOk) return kCorrupt;
  // The shape the options allow, and every word in the input, before the
  // table is allocated.
  const uint64_t base = f->table_->base_buckets();
  if (level >= 40 || base > (kMaxBuckets >> level) || slots < kStartSlots ||
      slots > GrowingTable::kMaxSlots || fp_bits < kMinEntryBits ||
      fp_bits > GrowingTable::kMaxFpBits) {
    return kCorrupt;
  }
  const uint64_t words = ((base << level) * slots * (fp_bits + 10) + 63) / 64;
  if (words > c.left() / 8) return kCorrupt;
  try {
    auto t = std::make_unique<GrowingTable>(base, level, slots, fp_bits);
    for (uint64_t i = 0; i < words; ++i) {
      uint64_t w = 0;
      c.U64(&w);
      t->SetWord(i, w);
    }
    if (!t->Recount()) return kCorrupt;
    f->Publish(std::move(t));
  } catch (const std::bad_alloc&) {
    return DynamicStatus::kFull;
  }
  // The counts: sorted, each beside an entry its pair holds.
  uint64_t n = 0, counted = 0;
  if (!c.U64(&n) || n > c.left() / 20) return kCorrupt;
  for (uint64_t i = 0, prev_i1 = 0, prev_payload = 0; i < n; ++i) {
    uint64_t i1 = 0, payload = 0;
    uint32_t count = 0;
    c.U64(&i1);
    c.U64(&payload);
    c.U32(&count);
    const GrowingTable& t = *f->table_;
    if (count == 0 || i1 >= t.num_buckets() || payload >> (t.fp_bits() + 10) != 0 ||
        (payload >> (GrowingTable::kTagBits + 1)) == 0 ||
        (i > 0 && (i1 < prev_i1 || (i1 == prev_i1 && payload <= prev_payload)))) {
      return kCorrupt;
    }
    // The payload's own entry, found as a key would find it.
    const unsigned L = GrowingTable::PayloadLength(payload);
    const uint64_t code = (payload ^ (uint64_t{1} << (L + 1 + GrowingTable::kTagBits)))
                          << (t.fp_bits() - L);
    if (t.LongestPrefix(i1, code) != payload) return kCorrupt;
    f->extra_.Add(ExtraA(i1, payload), ExtraB(payload), count);
    counted += count;
    prev_i1 = i1;
    prev_payload = payload;
  }
  // Every key owns an entry or a count (L = 0 entries are copied by splits).
  if (size > f->table_->entries() + counted) return kCorrupt;
  f->side_bytes_.store(f->extra_.MemoryBytes(), std::memory_order_relaxed);
  f->phase_ = level + 1;
  f->new_l_ = fp_bits;
  f->size_.store(size, std::memory_order_relaxed);
  *consumed = bytes.size() - c.left();
  *out = std::move(f);
  return DynamicStatus::kOk;
}

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
