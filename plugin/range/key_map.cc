#include "range/key_map.h"

#include <algorithm>

namespace sstfilter {
namespace {

// A digit of `base` scaled to `scaled` (<= base): monotone, onto [0, scaled).
inline uint32_t Scale(uint32_t digit, uint32_t base, uint32_t scaled) {
  return scaled == base ? digit : static_cast<uint32_t>(uint64_t{digit} * scaled / base);
}

}  // namespace

KeyMap::KeyMap(const Position* positions, size_t count, uint16_t last_scaled_base)
    : count_(std::min(count, kWindow)), last_scaled_base_(last_scaled_base) {
  std::copy(positions, positions + count_, positions_.begin());
  universe_ = 1;
  for (size_t i = 0; i < count_; ++i) {
    universe_ *= i + 1 == count_ ? last_scaled_base_ : positions_[i].base;
  }
}

KeyMap::Mapped KeyMap::Map(std::string_view key) const {
  const size_t n = count_;
  // The product of the (scaled) bases of positions i.. n-1: the weight of
  // digit i - 1.
  auto weight_from = [&](size_t i) {
    Uint128 w = 1;
    for (size_t j = i; j < n; ++j) w *= j + 1 == n ? last_scaled_base_ : positions_[j].base;
    return w;
  };
  Uint128 v = 0;
  bool strict = true;
  for (size_t i = 0; i < n; ++i) {
    const Position& p = positions_[i];
    const uint32_t base = p.base;
    const uint32_t scaled = i + 1 == n ? last_scaled_base_ : base;
    if (scaled != base) strict = false;  // coarsened: neighbours may merge
    if (i >= key.size()) {
      // Ended here: the end symbol where keys end here, else below every
      // byte; every later digit its least.
      return {v * weight_from(i), strict};
    }
    const uint32_t c = static_cast<unsigned char>(key[i]);
    if (base == 1 && !p.has_end && c == p.min) continue;  // a shared byte: digit 0 of 1
    const uint32_t first_byte_digit = p.has_end ? 1 : 0;
    const uint32_t bytes = base - first_byte_digit;  // 0: no key has a byte here
    if (bytes > 0 && c >= p.min && c - p.min < bytes) {
      v = v * scaled + Scale(first_byte_digit + c - p.min, base, scaled);
      continue;
    }
    if (bytes > 0 && c < p.min) {
      // Below every key's byte here: the least value of the keys that go on
      // from this prefix (each is greater than `key`).
      v = v * scaled + Scale(first_byte_digit, base, scaled);
      return {v * weight_from(i + 1), strict};
    }
    // Above every key's byte here: the least value past this prefix.
    return {(v + 1) * weight_from(i), strict};
  }
  // Bytes past the last position are not read: a longer key shares its
  // value with keys that differ only there.
  return {v, strict && key.size() <= n};
}

void KeyMapBuilder::Add(std::string_view key) {
  const size_t read = std::min(key.size(), KeyMap::kWindow);
  for (size_t i = 0; i < read; ++i) {
    const auto c = static_cast<uint8_t>(key[i]);
    Seen& s = seen_[i];
    s.has_byte = true;
    s.min = std::min(s.min, c);
    s.max = std::max(s.max, c);
  }
  if (key.size() < KeyMap::kWindow) seen_[key.size()].ends = true;
}

KeyMap KeyMapBuilder::Build() const {
  constexpr Uint128 kLimit = Uint128{1} << KeyMap::kMaxUniverseBits;
  std::vector<KeyMap::Position> positions;
  Uint128 universe = 1;
  uint16_t last_scaled = 1;
  for (size_t i = 0; i < KeyMap::kWindow; ++i) {
    const Seen& s = seen_[i];
    KeyMap::Position p;
    p.min = s.has_byte ? s.min : 0;
    p.has_end = s.ends;
    p.base = static_cast<uint16_t>((s.ends ? 1 : 0) + (s.has_byte ? s.max - s.min + 1 : 0));
    if (p.base == 0) break;  // no key reaches this position
    if (universe * p.base > kLimit) {
      const auto room = static_cast<uint16_t>(std::min<Uint128>(kLimit / universe, p.base));
      if (room >= 2) {
        positions.push_back(p);
        last_scaled = room;
      }
      break;
    }
    universe *= p.base;
    positions.push_back(p);
    last_scaled = p.base;
  }
  return KeyMap(positions.data(), positions.size(), last_scaled);
}

}  // namespace sstfilter
