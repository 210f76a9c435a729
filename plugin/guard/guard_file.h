// The saved guard (GuardOptions::guard_file): what it covers and the
// filters, checksummed. Layout in docs/format.md ("Guard file").
//
// Decoding checks magic, version, every length and the checksum; anything
// else is an error, so a damaged file is rebuilt from the DB, never trusted.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sstfilter {

struct GuardFileContents {
  uint64_t sequence = 0;           // the sequence number the guard has seen
  std::string db_identity;         // DB::GetDbIdentity()
  std::vector<uint64_t> sst_files; // live SST file numbers at save, sorted
  struct Family {
    uint32_t id = 0;
    std::string name;
    std::string filter;  // DynamicCuckooFilter::Save bytes
  };
  std::vector<Family> families;
};

void EncodeGuardFile(const GuardFileContents& contents, std::string* out);
// False (with *why) for anything but a well-formed, intact file.
bool DecodeGuardFile(std::string_view bytes, GuardFileContents* contents, std::string* why);

}  // namespace sstfilter
