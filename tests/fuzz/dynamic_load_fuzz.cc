// libFuzzer target: DynamicCuckooFilter::Load on arbitrary bytes. Input
// that Load accepts must behave as a filter: queries do not crash, Save
// gives back exactly the input, and a checked filter matches every hash it
// lists (Load verifies that too); a filter of versions 1 to 3 refuses
// inserts (kReadOnly). Anything else must be kCorrupt with the output
// untouched. The seeds (corpus/dynamic_load) are saved filters, so
// mutations explore damaged ones; the checksum stops most of them, as it
// should: the fuzzer then checks the field validation behind it only with
// inputs whose checksum it happens to fix, which is why the unit tests
// (growing_format_test, dynamic_legacy_test) damage fields behind it too.

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "format/hash.h"
#include "sstfilter/dynamic_cuckoo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sstfilter;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<DynamicCuckooFilter> f;
  const DynamicStatus s = DynamicCuckooFilter::Load(bytes, &f);
  if (s != DynamicStatus::kOk) {
    if (s != DynamicStatus::kCorrupt || f != nullptr) std::abort();
    return 0;
  }
  std::string again;
  f->Save(&again);
  if (again != bytes) std::abort();
  for (uint64_t i = 0; i < 64; ++i) (void)f->ContainsHash(Mix64(i));
  // The loaded filter keeps its contract under new inserts, or refuses
  // them all (read-only versions 1 to 3).
  const bool read_only = f->options().format_version >= 1 && f->options().format_version <= 3;
  for (uint64_t i = 0; i < 64; ++i) {
    const DynamicStatus s = f->InsertHash(Mix64(i + 1000));
    if (read_only != (s == DynamicStatus::kReadOnly)) std::abort();
    if (s == DynamicStatus::kOk && !f->ContainsHash(Mix64(i + 1000))) std::abort();
  }
  return 0;
}
