#include "rocksdb_adapter/bits_adapter.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "filters/planner.h"
#include "filters/reader_dispatch.h"
#include "format/hash.h"
#include "format/trailer.h"
#include "rocksdb_adapter/builtin_family.h"
#include "rocksdb_adapter/memory_rounding.h"
#include "rocksdb_adapter/slice_hash.h"
#include "rocksdb_adapter/tsan_handoff.h"

namespace sstfilter {

BitsBuilderAdapter::BitsBuilderAdapter(const FilterSpec& spec, bool verify_after_build,
                                       bool builtin_guard)
    : spec_(spec),
      core_(NewFilterBuilder(spec)),
      verify_after_build_(verify_after_build),
      builtin_guard_(builtin_guard) {}

void BitsBuilderAdapter::SetChooser(FilterChooser chooser) {
  chooser_ = std::move(chooser);
}

void BitsBuilderAdapter::SetConstructionCharge(std::unique_ptr<ConstructionCharge> charge) {
  charge_ = std::move(charge);
}

void BitsBuilderAdapter::ChargeHashesSlow() {
  const size_t held = core_->hashes().capacity() * sizeof(uint64_t);
  hashes_tried_ = held;
  if (charge_->Add(held - hashes_charged_)) hashes_charged_ = held;
}

void BitsBuilderAdapter::FinishCore(std::string* filter) {
  if (!charge_ && !fill_allocation_) {
    core_->Finish(filter);
    return;
  }
  const size_t n = core_->NumHashes();
  FilterPlan plan = core_->FinishingPlan();
  bool replanned = false;
  if (fill_allocation_) {
    const FilterPlan filled = FillAllocation(plan, spec_, n, GuardSize());
    replanned = filled.bytes != plan.bytes;
    plan = filled;
  }
  if (charge_) {
    ChargeHashes();
    // The filter is built in a string, then copied to RocksDB's buffer.
    if (!charge_->Add(PlanWorkingBytes(plan, n) + 2 * plan.bytes)) {
      plan = PlanFilter(FilterSpec{FilterType::kBloom, spec_.bits_per_key}, n);
      replanned = true;
      charge_->Add(2 * plan.bytes);  // a refusal changes nothing now
    }
  }
  if (replanned) {
    core_->FinishWith(plan, filter);
  } else {
    core_->Finish(filter);
  }
}

void BitsBuilderAdapter::NoteKeyRange(const rocksdb::Slice& key) {
  if (!has_first_key_) first_key_.assign(key.data(), key.size());
  has_first_key_ = true;
  last_key_.assign(key.data(), key.size());
}

void BitsBuilderAdapter::AddKey(const rocksdb::Slice& key) {
  if (chooser_) NoteKeyRange(key);
  core_->AddHash(KeyHash(key));
  ChargeHashes();
}

#if SSTFILTER_HAS_ADD_KEY_AND_ALT
void BitsBuilderAdapter::AddKeyAndAlt(const rocksdb::Slice& key,
                                      const rocksdb::Slice& alt) {
  if (chooser_) NoteKeyRange(key);
  core_->AddHash(KeyHash(key));
  const uint64_t alt_hash = KeyHash(alt);
  if (!has_last_alt_ || alt_hash != last_alt_hash_) core_->AddHash(alt_hash);
  has_last_alt_ = true;
  last_alt_hash_ = alt_hash;
  ChargeHashes();
}
#endif

size_t BitsBuilderAdapter::EstimateEntriesAdded() { return core_->NumHashes(); }

rocksdb::Slice BitsBuilderAdapter::Finish(std::unique_ptr<const char[]>* buf,
                                          rocksdb::Status* status) {
  if (refusal_.empty()) return Finish(buf);
  core_ = NewFilterBuilder(spec_);  // the keys held so far, dropped
  buf->reset();
  if (status != nullptr) *status = rocksdb::Status::Corruption(refusal_);
  return rocksdb::Slice();
}

rocksdb::Slice BitsBuilderAdapter::Finish(std::unique_ptr<const char[]>* buf) {
  if (!refusal_.empty()) {
    // A caller that takes no status: no filter for a refused policy (a
    // table without one is read correctly, only slower).
    rocksdb::Status ignored;
    return Finish(buf, &ignored);
  }
  if (chooser_) {
    const FilterSpec spec = chooser_(core_->NumHashes(), first_key_, last_key_, /*learn=*/true);
    chooser_ = nullptr;
    sizing_.reset();
    if (spec.type != spec_.type || spec.bits_per_key != spec_.bits_per_key) {
      auto chosen = NewFilterBuilder(spec);
      for (uint64_t h : core_->hashes()) chosen->AddHash(h);
      core_ = std::move(chosen);
      spec_ = spec;
    }
  }
  if (verify_after_build_) finished_hashes_ = core_->hashes();
  std::string filter;
  FinishCore(&filter);
  if (builtin_guard_) AppendBuiltinGuard(&filter);
  auto* bytes = new char[filter.size()];
  std::memcpy(bytes, filter.data(), filter.size());
  buf->reset(bytes);
  finished_data_ = bytes;
  if (charge_) {
    charge_->ReleaseAll();
    hashes_charged_ = 0;
    hashes_tried_ = 0;
  }
#if SSTFILTER_HAS_ADD_KEY_AND_ALT
  has_last_alt_ = false;  // the next filter starts fresh
#endif
  return rocksdb::Slice(bytes, filter.size());
}

rocksdb::Status BitsBuilderAdapter::MaybePostVerify(
    const rocksdb::Slice& finished) {
  if (builtin_guard_ && !HasBuiltinGuard(finished)) {
    return rocksdb::Status::Corruption(
        "sstfilter: filter damaged after construction (built-in guard)");
  }
  const rocksdb::Slice filter_content = builtin_guard_ ? WithoutBuiltinGuard(finished) : finished;
  ParsedFilter parsed;
  if (!ParseFilter(filter_content.data(), filter_content.size(), &parsed,
                   ChecksumCheck::kVerify)) {
    return rocksdb::Status::Corruption(
        "sstfilter: filter damaged after construction (trailer or checksum)");
  }
  // RocksDB may verify a partition again later, when its hashes are gone;
  // the checksum above (the small form's check and bitmap count) still
  // covers that call.
  if (finished.data() == finished_data_ && !finished_hashes_.empty()) {
    const auto reader =
        NewFilterReader(filter_content.data(), filter_content.size());
    for (uint64_t h : finished_hashes_) {
      if (!reader->MayMatch(h)) {
        return rocksdb::Status::Corruption(
            "sstfilter: finished filter does not match a key that was added");
      }
    }
    finished_hashes_.clear();
  }
  return rocksdb::Status::OK();
}

size_t BitsBuilderAdapter::GuardSize() const {
  return builtin_guard_ ? kBuiltinGuardSize : 0;
}

size_t BitsBuilderAdapter::ApproximateNumEntries(size_t bytes) {
  return bytes < GuardSize() ? 0 : SizingBuilder().MaxKeysForSize(bytes - GuardSize());
}

const FilterBuilder& BitsBuilderAdapter::SizingBuilder(FilterSpec* spec) {
  if (!chooser_ || !has_first_key_) {
    if (spec != nullptr) *spec = spec_;
    return *core_;
  }
  if (!sizing_) {
    // The choice depends on the level and the first key, not on the count
    // (FileFacts): one peek serves every later call.
    sizing_spec_ = chooser_(core_->NumHashes(), first_key_, last_key_, /*learn=*/false);
    sizing_ = NewFilterBuilder(sizing_spec_);
  }
  if (spec != nullptr) *spec = sizing_spec_;
  return *sizing_;
}

size_t BitsBuilderAdapter::CalculateSpace(size_t num_entries) {
  return SizingBuilder().FilterSize(num_entries) + GuardSize();
}

double BitsBuilderAdapter::EstimatedFpRate(size_t num_entries, size_t bytes) {
  if (num_entries == 0) return 0.0;
  FilterSpec spec;
  const FilterBuilder& sizing = SizingBuilder(&spec);
  if (bytes == sizing.FilterSize(num_entries) + GuardSize()) {
    return sizing.FinishedFpr(num_entries);
  }
  // Another size: the same kind at the bits/key those bytes give.
  spec.bits_per_key = 8.0 * static_cast<double>(bytes > GuardSize() ? bytes - GuardSize() : 0) /
                      static_cast<double>(num_entries);
  return NewFilterBuilder(spec)->ExpectedFpr(num_entries);
}

namespace {

// R is a final core reader type, kept by value: one object per filter,
// and reader_.MayMatch is a direct, inlinable call.
template <typename R>
class TypedBitsReader final : public rocksdb::FilterBitsReader {
 public:
  explicit TypedBitsReader(const R& reader) : reader_(reader) { PublishedBy(this); }

  bool MayMatch(const rocksdb::Slice& key) override {
    ReceivedFrom(this);
    return reader_.MayMatch(KeyHash(key));
  }

  void MayMatch(int num_keys, rocksdb::Slice** keys, bool* may_match) override {
    ReceivedFrom(this);
    constexpr int kChunk = 64;
    uint64_t hashes[kChunk];
    for (int base = 0; base < num_keys; base += kChunk) {
      const int m = std::min(kChunk, num_keys - base);
      for (int i = 0; i < m; ++i) hashes[i] = KeyHash(*keys[base + i]);
      reader_.MayMatchBatch(m, hashes, may_match + base);
    }
  }

 private:
  const R reader_;
};

}  // namespace

rocksdb::FilterBitsReader* NewBitsReader(const rocksdb::Slice& contents) {
  // RocksDB verified the block's checksum when it read it from the file;
  // a second pass over the whole filter on every load would cost each
  // load a full read of the filter (tools/bench/filter_reload_bench.sh
  // measures it; docs/design/safety.md).
  return WithFilterReader(contents.data(), contents.size(), ChecksumCheck::kEngineVerified,
                          [](const auto& reader) -> rocksdb::FilterBitsReader* {
                            return new TypedBitsReader<std::decay_t<decltype(reader)>>(reader);
                          });
}

}  // namespace sstfilter
