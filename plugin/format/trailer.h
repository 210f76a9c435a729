// The trailer ending every sstfilter filter; docs/format.md draws it.
//
//   +---------+-----------+-----------+-------------+--------------------+
//   | kind u8 | param_a u8| param_b u8| 0xF0|version| checksum u32 (LE)  |
//   +---------+-----------+-----------+-------------+--------------------+
//     byte 0     byte 1      byte 2      byte 3       bytes 4..7
//
// The checksum covers the payload and trailer bytes 0..3, so almost any
// damage to the filter is caught before a reader trusts it (unless the
// engine checked the same bytes already: ChecksumCheck). The trailer is
// the only thing a reader trusts, and it is checked once, when the reader
// is made.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace sstfilter {

// Stored in the trailer's kind byte; values are part of the format. The
// format layer knows no kind: each kind names its own byte beside its
// code (kBloomKind in filters/bloom.h, ...), and the registry
// (filters/kinds.h) refuses, when it compiles, two kinds of one byte, 0,
// and 5, which names the small form in memory (filters/small_filter.h:
// it has no version-1 trailer).
enum class FilterKind : uint8_t {};

constexpr size_t kTrailerSize = 8;
constexpr uint8_t kFormatVersion = 1;
// High nibble of byte 3 marks an sstfilter trailer; low nibble is the
// format version.
constexpr uint8_t kMarkerNibble = 0xF0;

struct Trailer {
  FilterKind kind{};
  uint8_t param_a = 0;  // Bloom: probes per key; cuckoo, fuse: fingerprint bits;
                        // bumped ribbon: solution columns of the narrow blocks
  uint8_t param_b = 0;  // Bloom, bumped ribbon: 0; cuckoo: stash entries; fuse: arity
};

// Appends the trailer to *dst, with the checksum computed over
// dst[payload_start, end) and the trailer's first four bytes.
void AppendTrailer(const Trailer& trailer, size_t payload_start,
                   std::string* dst);

// Whether a reader recomputes the checksum over the whole filter.
enum class ChecksumCheck {
  kVerify,  // always (LevelDB, tools, the core's own API)
  // The engine verified the block holding these bytes when it read them
  // (RocksDB checksums every block read from a file, unless the read has
  // ReadOptions::verify_checksums off): marker, version, kind and shape
  // are still checked, the checksum is not. docs/design/safety.md has the cost.
  kEngineVerified,
};

// Checks that [data, data + size) ends in an intact trailer of a known
// version (marker, version and, unless `check` says the engine did,
// checksum). On success fills *trailer and *payload_size. Whether any kind
// has that kind byte, and its parameters, are the registry's to check
// (ParseVersion1Filter, filters/reader_dispatch.h).
bool ParseTrailer(const char* data, size_t size, Trailer* trailer,
                  size_t* payload_size, ChecksumCheck check = ChecksumCheck::kVerify);

// Whether the version-1 trailer's checksum matches; requires size >= 8.
bool TrailerChecksumMatches(const char* data, size_t size);

}  // namespace sstfilter
