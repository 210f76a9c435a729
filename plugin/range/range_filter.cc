#include "range/range_filter.h"

#include <algorithm>
#include <cmath>

#include "format/coding.h"
#include "format/hash.h"

namespace sstfilter {
namespace {

constexpr uint8_t kVersion = 1;
constexpr uint64_t kBlock = uint64_t{1} << 16;  // L, the hashed mode's block
// A range over more blocks than this answers "may" without looking.
constexpr uint64_t kMaxBlocks = 4;
constexpr uint64_t kBlockHashSeed = 0x73737466726e6731ULL;  // "sstfrng1"

enum : uint8_t { kExact = 0, kHashed = 1, kEverything = 2 };

// Where a block starts on the ring [0, r).
uint64_t BlockStart(Uint128 block, uint64_t r) {
  char bytes[16];
  EncodeFixed64(bytes, static_cast<uint64_t>(block));
  EncodeFixed64(bytes + 8, static_cast<uint64_t>(block >> 64));
  return FastRange64(XXH3_64bits_withSeed(bytes, sizeof(bytes), kBlockHashSeed), r);
}

// The code of integer x: its block's start on the ring, plus its offset.
// (Blocks are 2^16 unless the ring is smaller: then shifts, not 128-bit
// divisions; start and offset are both below r, so one subtraction wraps.)
uint64_t HashedCode(Uint128 x, uint64_t block, uint64_t r) {
  const bool pow2 = (block & (block - 1)) == 0;
  const unsigned shift = pow2 ? static_cast<unsigned>(__builtin_ctzll(block)) : 0;
  const uint64_t offset = pow2 ? static_cast<uint64_t>(x) & (block - 1)
                               : static_cast<uint64_t>(x % block);
  const Uint128 blk = pow2 ? x >> shift : x / block;
  const uint64_t start = BlockStart(blk, r);
  return offset >= r - start ? offset - (r - start) : start + offset;
}

// The header: version, mode, the key map, the Elias-Fano shape's inputs,
// the block; then its checksum.
void PutHeader(uint8_t mode, const KeyMap& map, uint64_t n, uint64_t universe, uint64_t block,
               std::string* out) {
  out->push_back(static_cast<char>(kVersion));
  out->push_back(static_cast<char>(mode));
  out->push_back(static_cast<char>(map.positions().size()));
  out->push_back('\0');
  PutFixed32(out, map.last_scaled_base());
  for (const KeyMap::Position& p : map.positions()) {
    out->push_back(static_cast<char>(p.min));
    out->push_back(static_cast<char>(p.has_end ? 1 : 0));
    out->push_back(static_cast<char>(p.base & 0xff));
    out->push_back(static_cast<char>(p.base >> 8));
  }
  PutFixed64(out, n);
  PutFixed64(out, universe);
  PutFixed64(out, block);
  PutFixed32(out, ContentChecksum(out->data(), out->size()));
}

// Sorts codes below `universe`: a few LSD radix passes of 11 bits (each
// one pass to count, one to move), several times faster than std::sort at
// SST sizes; already sorted input (the exact mode's, from RocksDB's sorted
// keys) costs one check.
void SortCodes(uint64_t universe, std::vector<uint64_t>* codes) {
  if (std::is_sorted(codes->begin(), codes->end())) return;
  if (codes->size() < 4096) {
    std::sort(codes->begin(), codes->end());
    return;
  }
  constexpr unsigned kDigit = 11;
  const unsigned bits = 64 - static_cast<unsigned>(__builtin_clzll(universe | 1));
  std::vector<uint64_t> buffer(codes->size());
  for (unsigned shift = 0; shift < bits; shift += kDigit) {
    uint64_t counts[(1 << kDigit) + 1] = {};
    for (uint64_t c : *codes) ++counts[((c >> shift) & ((1 << kDigit) - 1)) + 1];
    for (unsigned d = 1; d <= (1 << kDigit); ++d) counts[d] += counts[d - 1];
    for (uint64_t c : *codes) buffer[counts[(c >> shift) & ((1 << kDigit) - 1)]++] = c;
    codes->swap(buffer);
  }
}

}  // namespace

RangeFilterBuilder::RangeFilterBuilder(double bits_per_key) : bits_per_key_(bits_per_key) {}

void RangeFilterBuilder::AddKey(std::string_view key) {
  if (has_last_ && key == last_) return;
  last_.assign(key.data(), key.size());
  has_last_ = true;
  ++keys_;
  map_.Add(key);
  const size_t kept = std::min(key.size(), KeyMap::kWindow);
  window_.push_back(static_cast<char>(kept));
  window_.append(key.data(), kept);
}

void RangeFilterBuilder::AddRangeTombstone(std::string_view start, std::string_view end) {
  tombstone_bytes_ += start.size() + end.size();
  if (tombstones_.size() == kMaxTombstones || tombstone_bytes_ > kMaxTombstoneBytes) {
    match_everything_ = true;
    return;
  }
  tombstones_.emplace_back(std::string(start), std::string(end));
}

std::string RangeFilterBuilder::Finish() {
  std::string out;
  if (match_everything_ || spent_) {
    PutHeader(kEverything, KeyMap(), 0, 1, 0, &out);
    return out;
  }
  const KeyMap map = map_.Build();
  const uint64_t n = keys_;
  // r = n * 2^(B - 2): B - 2 bits of low part and 2 of unary high part.
  const double ring = static_cast<double>(n) * std::exp2(bits_per_key_ - 2);
  const uint64_t r = static_cast<uint64_t>(std::clamp(ring, 1.0, std::ldexp(1.0, 62)));
  const bool exact = map.universe() <= r;
  const uint64_t block = exact ? 0 : std::min(kBlock, r);
  std::vector<uint64_t> codes;
  codes.reserve(n);
  for (size_t at = 0; at < window_.size();) {
    const size_t len = static_cast<uint8_t>(window_[at]);
    const Uint128 x = map.Map(std::string_view(window_.data() + at + 1, len)).value;
    codes.push_back(exact ? static_cast<uint64_t>(x) : HashedCode(x, block, r));
    at += 1 + len;
  }
  const uint64_t universe = exact ? static_cast<uint64_t>(map.universe()) : r;
  SortCodes(universe, &codes);
  PutHeader(exact ? kExact : kHashed, map, n, universe, block, &out);
  EncodeEliasFano(codes, EliasFanoShape::For(n, universe), &out);
  PutFixed32(&out, static_cast<uint32_t>(tombstones_.size()));
  for (const auto& [start, end] : tombstones_) {
    PutFixed32(&out, static_cast<uint32_t>(start.size()));
    out.append(start);
    PutFixed32(&out, static_cast<uint32_t>(end.size()));
    out.append(end);
  }
  window_.clear();
  spent_ = true;
  return out;
}

bool RangeFilterReader::Parse(std::string_view bytes) {
  mode_ = Mode::kEverything;
  num_tombstones_ = 0;
  if (bytes.size() < 8 || static_cast<uint8_t>(bytes[0]) != kVersion) return false;
  const auto mode = static_cast<uint8_t>(bytes[1]);
  const size_t positions = static_cast<uint8_t>(bytes[2]);
  if (mode > kEverything || positions > KeyMap::kWindow || bytes[3] != 0) return false;
  const size_t header = 8 + 4 * positions + 24;
  if (bytes.size() < header + 4 ||
      DecodeFixed32(bytes.data() + header) != ContentChecksum(bytes.data(), header)) {
    return false;
  }
  if (mode == kEverything) return true;
  const auto last_scaled = DecodeFixed32(bytes.data() + 4);
  KeyMap::Position ps[KeyMap::kWindow];
  for (size_t i = 0; i < positions; ++i) {
    const char* p = bytes.data() + 8 + 4 * i;
    ps[i].min = static_cast<uint8_t>(p[0]);
    ps[i].has_end = p[1] != 0;
    ps[i].base = static_cast<uint16_t>(static_cast<uint8_t>(p[2]) | (static_cast<uint8_t>(p[3]) << 8));
    if (ps[i].base == 0 || ps[i].base > 257) return false;
  }
  if (positions > 0 && (last_scaled == 0 || last_scaled > ps[positions - 1].base)) return false;
  const char* q = bytes.data() + 8 + 4 * positions;
  const uint64_t n = DecodeFixed64(q), universe = DecodeFixed64(q + 8);
  block_ = DecodeFixed64(q + 16);
  if (universe == 0 || (mode == kHashed && (block_ == 0 || block_ > universe))) return false;
  map_ = KeyMap(ps, positions, static_cast<uint16_t>(positions > 0 ? last_scaled : 1));
  if (mode == kExact && map_.universe() != universe) return false;
  const std::string_view body = bytes.substr(header + 4);
  // The high bits hold a bit per code and per bucket: sizes past what the
  // bytes can hold are damage (and would overflow the shape's arithmetic).
  const uint64_t body_bits = 8 * static_cast<uint64_t>(body.size());
  if (n > body_bits) return false;
  ef_shape_ = EliasFanoShape::For(n, universe);
  if ((universe >> ef_shape_.low_bits) > body_bits) return false;
  if (body.size() < ef_shape_.Bytes() || !ef_.Init(ef_shape_, body.substr(0, ef_shape_.Bytes()))) {
    return false;
  }
  ByteReader tombstones(body.substr(ef_shape_.Bytes()));
  uint32_t count = 0;
  if (!tombstones.U32(&count) || count > RangeFilterBuilder::kMaxTombstones) return false;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t start_size = 0, end_size = 0;
    const char* start = nullptr;
    const char* end = nullptr;
    if (!tombstones.U32(&start_size) || !tombstones.Take(start_size, &start) ||
        !tombstones.U32(&end_size) || !tombstones.Take(end_size, &end)) {
      return false;
    }
    tombstones_[i] = {std::string_view(start, start_size), std::string_view(end, end_size)};
  }
  if (!tombstones.empty()) return false;
  num_tombstones_ = count;
  mode_ = static_cast<Mode>(mode);
  return true;
}

bool RangeFilterReader::MayContain(std::string_view lo, std::string_view hi) const {
  if (mode_ == Mode::kEverything) return true;
  if (!(lo < hi)) return false;  // an empty range holds no key
  for (size_t i = 0; i < num_tombstones_; ++i) {
    if (tombstones_[i].first < hi && lo < tombstones_[i].second) return true;
  }
  const KeyMap::Mapped low = map_.Map(lo), high = map_.Map(hi);
  Uint128 a = low.value, b = high.value;
  if (high.strict) {
    if (b == 0) return false;
    --b;  // every key below hi maps below its value
  }
  if (b < a) return false;
  const uint64_t universe = ef_shape_.universe;
  if (mode_ == Mode::kExact) {
    if (a >= universe) return false;
    return ef_.AnyIn(static_cast<uint64_t>(a),
                     static_cast<uint64_t>(std::min<Uint128>(b, universe - 1)));
  }
  const Uint128 first = a / block_, last = b / block_;
  if (last - first >= kMaxBlocks) return true;
  for (Uint128 blk = first; blk <= last; ++blk) {
    const uint64_t from = blk == first ? static_cast<uint64_t>(a % block_) : 0;
    const uint64_t to = blk == last ? static_cast<uint64_t>(b % block_) : block_ - 1;
    if (RunMayContain((BlockStart(blk, universe) + from) % universe, to - from)) return true;
  }
  return false;
}

bool RangeFilterReader::RunMayContain(uint64_t start, uint64_t extra) const {
  // The ring's run [start, start + extra], wrapping past its end.
  const uint64_t r = ef_shape_.universe;
  if (extra < r - start) return ef_.AnyIn(start, start + extra);
  return ef_.AnyIn(start, r - 1) || ef_.AnyIn(0, extra - (r - start));
}

}  // namespace sstfilter
