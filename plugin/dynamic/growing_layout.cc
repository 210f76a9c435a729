#include "dynamic/growing_layout.h"

#include <new>

#include "dynamic/table_memory.h"

namespace sstfilter {
namespace dynamic_cuckoo {

GrowingLayout::GrowingLayout(uint64_t base_buckets, unsigned level, unsigned slots,
                             unsigned fp_bits)
    : base_(base_buckets),
      level_(level),
      buckets_(base_buckets << level),
      slots_(slots),
      fp_bits_(fp_bits),
      slot_bits_(fp_bits + kTagBits + 2),
      bucket_bits_(uint64_t{slots} * slot_bits_),
      table_bits_(buckets_ * bucket_bits_),
      words_count_((buckets_ * slots * slot_bits_ + 63) / 64),
      tail_mask_((uint64_t{1} << (fp_bits + 1)) - 1),
      heads_top_(0),
      map_bytes_((words_count_ + 1) * sizeof(uint64_t)) {
  // Zero pages are zero-valued atomics (a plain 8-byte word here).
  static_assert(sizeof(std::atomic<uint64_t>) == sizeof(uint64_t), "atomic layout");
  words_ = new (MapZeroed(map_bytes_)) std::atomic<uint64_t>[words_count_ + 1];
  for (unsigned k = 0; k < slots && k < kHeadsPerWord; ++k) {
    heads_top_ |= uint64_t{1} << (k * kHeadBits + kHeadBits - 1);
  }
  for (uint64_t t = 0; t < (1U << kTagBits); ++t) {
    offset_[t] = 1 + FastRange64(Mix64(t + 0x9e3779b97f4a7c15ULL), buckets_ - 1);
    offset_bits_[t] = offset_[t] * bucket_bits_;
  }
}

GrowingLayout::~GrowingLayout() { Unmap(words_, map_bytes_); }

void GrowingLayout::Retire() { ReleasePages(words_, map_bytes_); }

}  // namespace dynamic_cuckoo
}  // namespace sstfilter
