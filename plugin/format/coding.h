// Little-endian fixed-width encoding and unaligned loads.
//
// Every multi-byte integer sstfilter writes to disk goes through these
// helpers, so the format is the same on every host whatever its byte order.
// Loads use memcpy: filter contents handed to us by an engine carry no
// alignment guarantee.

#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

// For the few helpers on every query's path, which the compiler otherwise
// may leave out of line at -O2 (a call per bucket).
#if defined(__GNUC__)
#define SSTFILTER_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define SSTFILTER_ALWAYS_INLINE inline
#endif

namespace sstfilter {

SSTFILTER_ALWAYS_INLINE uint32_t DecodeFixed32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(b[0]) | (static_cast<uint32_t>(b[1]) << 8) |
         (static_cast<uint32_t>(b[2]) << 16) |
         (static_cast<uint32_t>(b[3]) << 24);
}

SSTFILTER_ALWAYS_INLINE uint64_t DecodeFixed64(const char* p) {
  return static_cast<uint64_t>(DecodeFixed32(p)) |
         (static_cast<uint64_t>(DecodeFixed32(p + 4)) << 32);
}

// On a little-endian host one 8-byte store (the byte loop is not merged
// into one by GCC 12 at -O2: 57 instructions per call in the fuse
// builder's assignment loop); the same bytes either way.
inline void EncodeFixed64(char* p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  std::memcpy(p, &v, sizeof(v));
#else
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (8 * i));
#endif
}

inline void EncodeFixed32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (8 * i));
}

inline void PutFixed32(std::string* dst, uint32_t v) {
  char buf[4];
  for (int i = 0; i < 4; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  dst->append(buf, sizeof(buf));
}

inline void PutFixed64(std::string* dst, uint64_t v) {
  char buf[8];
  EncodeFixed64(buf, v);
  dst->append(buf, sizeof(buf));
}

// Reads `width` (1..64) bits starting at bit `pos` of `base`, where bit i
// is bit (i % 8) of byte (i / 8): the little-endian bit order that makes a
// packed array independent of the host. One 8-byte load from byte pos / 8,
// so the field must fit it: (pos % 8) + width <= 64 (any field of up to 57
// bits; cuckoo buckets, multiples of 4 bits wide, start at bit 0 or 4 of a
// byte, so up to 60 bits, or 64 on a byte boundary). The caller guarantees
// 8 bytes from pos / 8 are addressable.
SSTFILTER_ALWAYS_INLINE uint64_t LoadBits(const char* base, uint64_t pos, unsigned width) {
  const uint64_t word = DecodeFixed64(base + (pos >> 3)) >> (pos & 7);
  return width >= 64 ? word : word & ((uint64_t{1} << width) - 1);
}

// Appends bit fields to a byte buffer in the little-endian bit order of
// LoadBits: the first field written lands in the lowest bits. For writing
// packed arrays front to back. Bytes already in the buffer are overwritten;
// output goes out eight bytes at a time, and Flush writes the last ones.
class BitWriter {
 public:
  explicit BitWriter(char* out) : out_(out) {}

  // Appends the low `width` (0..64) bits of `value`.
  void Put(uint64_t value, unsigned width) {
    if (width < 64) value &= (uint64_t{1} << width) - 1;
    acc_ |= value << pending_;
    pending_ += width;
    if (pending_ >= 64) {
      EncodeFixed64(out_, acc_);
      out_ += 8;
      pending_ -= 64;
      // What did not fit: the top pending_ bits of the field.
      acc_ = pending_ == 0 ? 0 : value >> (width - pending_);
    }
  }

  // Writes the last partial word, if any, in as few bytes as it needs.
  void Flush() {
    for (; pending_ > 0; pending_ = pending_ > 8 ? pending_ - 8 : 0) {
      *out_++ = static_cast<char>(acc_);
      acc_ >>= 8;
    }
    acc_ = 0;
  }

 private:
  char* out_;
  uint64_t acc_ = 0;
  unsigned pending_ = 0;  // bits in acc_, < 64 between calls
};

// A double's IEEE-754 binary64 bits, and back (for fixed-width encodings).
inline uint64_t DoubleBits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof(u));
  return u;
}
inline double BitsDouble(uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof(d));
  return d;
}

// Reads a byte string front to back in the encoding of PutFixed32/64.
// Every read is bounds-checked and returns false rather than read past the
// end, so a decoder over untrusted bytes (a saved filter, a guard file)
// checks each step and reports a truncated input as damaged. After a false
// the position is unspecified: stop reading.
class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}

  // The next n bytes, in place; false if fewer are left.
  bool Take(size_t n, const char** out) {
    if (in_.size() < n) return false;
    *out = in_.data();
    in_.remove_prefix(n);
    return true;
  }
  bool U32(uint32_t* v) {
    const char* p;
    if (!Take(4, &p)) return false;
    *v = DecodeFixed32(p);
    return true;
  }
  bool U64(uint64_t* v) {
    const char* p;
    if (!Take(8, &p)) return false;
    *v = DecodeFixed64(p);
    return true;
  }
  // A Fixed64 length, then that many bytes, copied into *v.
  bool LengthPrefixed(std::string* v) {
    uint64_t n;
    const char* p;
    if (!U64(&n) || n > in_.size() || !Take(n, &p)) return false;
    v->assign(p, n);
    return true;
  }
  size_t left() const { return in_.size(); }
  bool empty() const { return in_.empty(); }

 private:
  std::string_view in_;
};

}  // namespace sstfilter
