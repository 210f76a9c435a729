// libFuzzer target: operation sequences on a DynamicCuckooFilter checked
// against an exact multiset. Input: byte 0 picks the target FPR and start
// capacity; then 3-byte operations: op (2 bits: insert, insert, erase,
// query) and a key id (14 bits: a small key space, so duplicates up to and
// past the copy limit are common). Raw hashes of the ids reach the filter
// (Mix64, invertible), and 1/4 of ids are squeezed into 16 values so that
// copies pile up. A false negative, a wrong status or a Save/Load mismatch
// aborts.

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "format/hash.h"
#include "sstfilter/dynamic_cuckoo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sstfilter;
  if (size < 1) return 0;
  DynamicCuckooOptions o;
  const double fprs[] = {0.2, 0.03, 0.001, 1e-6};
  o.target_fpr = fprs[data[0] & 3];
  o.initial_capacity = 1 + ((data[0] >> 2) & 15) * 4;
  o.checked = (data[0] & 0x40) != 0;
  std::unique_ptr<DynamicCuckooFilter> f;
  if (DynamicCuckooFilter::Create(o, &f) != DynamicStatus::kOk) std::abort();
  std::map<uint64_t, uint32_t> model;
  uint64_t size_model = 0;
  for (size_t p = 1; p + 3 <= size; p += 3) {
    const unsigned op = data[p] & 3;
    uint64_t id = (static_cast<uint64_t>(data[p + 1]) << 8 | data[p + 2]) & 0x3fff;
    if ((data[p] & 0x0c) == 0) id &= 15;
    const uint64_t h = Mix64(id + 1);
    if (op <= 1) {
      const DynamicStatus s = f->InsertHash(h);
      if (s == DynamicStatus::kOk) {
        ++model[h];
        ++size_model;
      } else if (s != DynamicStatus::kTooManyCopies) {
        std::abort();
      }
      // At most the limit: every copy of a key matches it in its buckets.
      auto c = model.find(h);
      if (c != model.end() && c->second > kDynamicCuckooMaxCopies) std::abort();
    } else if (op == 2) {
      auto it = model.find(h);
      if (it != model.end() && it->second > 0) {
        if (f->EraseHash(h) != DynamicStatus::kOk) std::abort();
        --size_model;
        if (--it->second == 0) model.erase(it);
      } else if (o.checked && f->EraseHash(h) != DynamicStatus::kNotFound) {
        std::abort();  // checked mode must refuse an Erase of an absent key
      }
    } else {
      auto it = model.find(h);
      if (it != model.end() && !f->ContainsHash(h)) std::abort();
    }
  }
  if (f->Size() != size_model) std::abort();
  std::string bytes;
  f->Save(&bytes);
  std::unique_ptr<DynamicCuckooFilter> g;
  if (DynamicCuckooFilter::Load(bytes, &g) != DynamicStatus::kOk) std::abort();
  for (const auto& e : model) {
    if (!f->ContainsHash(e.first) || !g->ContainsHash(e.first)) std::abort();
  }
  return 0;
}
