#include "sstfilter/dynamic_cuckoo.h"

#include <algorithm>

#include "dynamic/dynamic_cuckoo_rep.h"
#include "dynamic/file_header.h"
#include "format/hash.h"

namespace sstfilter {

namespace {

// Calls body(hashes, count, first) for keys[0..n) a group at a time, with
// the group's key hashes.
template <size_t kGroup, typename Body>
void ForEachHashGroup(const std::string_view* keys, size_t n, Body&& body) {
  uint64_t hashes[kGroup];
  for (size_t start = 0; start < n; start += kGroup) {
    const size_t g = std::min(kGroup, n - start);
    for (size_t i = 0; i < g; ++i) {
      hashes[i] = KeyHash(keys[start + i].data(), keys[start + i].size());
    }
    body(hashes, g, start);
  }
}

}  // namespace

const char* DynamicStatusName(DynamicStatus s) {
  switch (s) {
    case DynamicStatus::kOk: return "Ok";
    case DynamicStatus::kTooManyCopies: return "TooManyCopies";
    case DynamicStatus::kNotFound: return "NotFound";
    case DynamicStatus::kFull: return "Full";
    case DynamicStatus::kCorrupt: return "Corrupt";
    case DynamicStatus::kInvalidArgument: return "InvalidArgument";
    case DynamicStatus::kReadOnly: return "ReadOnly";
  }
  return "Unknown";
}

DynamicCuckooFilter::DynamicCuckooFilter() : rep_(new dynamic_cuckoo::FilterRep) {}
DynamicCuckooFilter::~DynamicCuckooFilter() = default;

DynamicStatus DynamicCuckooFilter::Create(const DynamicCuckooOptions& options,
                                          std::unique_ptr<DynamicCuckooFilter>* out) {
  // Versions 1 to 3 are read, never written (legacy_reader.h).
  if (options.format_version != 0 && options.format_version != dynamic_cuckoo::kGrowingVersion) {
    return DynamicStatus::kInvalidArgument;
  }
  std::unique_ptr<DynamicCuckooFilter> f(new DynamicCuckooFilter);
  f->rep_->options = options;
  const DynamicStatus s = dynamic_cuckoo::GrowingFilter::Create(options, &f->rep_->growing);
  if (s != DynamicStatus::kOk) return s;
  f->growing_ = f->rep_->growing.get();
  *out = std::move(f);
  return DynamicStatus::kOk;
}

DynamicStatus DynamicCuckooFilter::Insert(std::string_view key) {
  return InsertHash(KeyHash(key.data(), key.size()));
}
DynamicStatus DynamicCuckooFilter::Erase(std::string_view key) {
  return EraseHash(KeyHash(key.data(), key.size()));
}
bool DynamicCuckooFilter::Contains(std::string_view key) const {
  return ContainsHash(KeyHash(key.data(), key.size()));
}

const DynamicCuckooOptions& DynamicCuckooFilter::options() const { return rep_->options; }

DynamicStatus DynamicCuckooFilter::InsertHash(uint64_t hash) {
  if (growing_ == nullptr) return DynamicStatus::kReadOnly;
  const DynamicStatus s = growing_->InsertHash(hash);
  if (s == DynamicStatus::kOk && rep_->options.checked) ++rep_->exact[hash];
  return s;
}

DynamicStatus DynamicCuckooFilter::EraseHash(uint64_t hash) {
  if (growing_ == nullptr) return DynamicStatus::kReadOnly;
  dynamic_cuckoo::FilterRep& r = *rep_;
  if (r.options.checked) {
    auto it = r.exact.find(hash);
    if (it == r.exact.end()) return DynamicStatus::kNotFound;
    if (--it->second == 0) r.exact.erase(it);
  }
  return growing_->EraseHash(hash);
}

DynamicStatus DynamicCuckooFilter::ReplaceWith(std::unique_ptr<DynamicCuckooFilter> other) {
  if (other == nullptr || growing_ == nullptr || other->growing_ == nullptr) {
    return DynamicStatus::kInvalidArgument;
  }
  rep_->options = other->rep_->options;
  rep_->exact = std::move(other->rep_->exact);
  rep_->growing->ReplaceWith(std::move(*other->rep_->growing));
  return DynamicStatus::kOk;
}

bool DynamicCuckooFilter::ContainsHash(uint64_t hash) const {
  if (growing_ != nullptr) return growing_->ContainsHash(hash);
  return rep_->legacy->ContainsHash(hash);
}

void DynamicCuckooFilter::PrefetchHash(uint64_t hash) const {
  if (growing_ != nullptr) return growing_->PrefetchHash(hash);
  rep_->legacy->PrefetchHash(hash);
}

void DynamicCuckooFilter::ContainsBatch(const std::string_view* keys, size_t n,
                                        bool* results) const {
  ForEachHashGroup<16>(keys, n, [&](const uint64_t* hashes, size_t g, size_t start) {
    for (size_t i = 0; i < g; ++i) PrefetchHash(hashes[i]);
    for (size_t i = 0; i < g; ++i) results[start + i] = ContainsHash(hashes[i]);
  });
}

void DynamicCuckooFilter::InsertHashBatch(const uint64_t* hashes, size_t n,
                                          DynamicStatus* statuses) {
  // Eight ahead: enough to cover a miss to memory at the rate inserts run;
  // more adds nothing (tools/bench/dynamic_bench times batched inserts).
  constexpr size_t kAhead = 8;
  for (size_t i = 0; i < n && i < kAhead; ++i) PrefetchHash(hashes[i]);
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) PrefetchHash(hashes[i + kAhead]);
    statuses[i] = InsertHash(hashes[i]);
  }
}

void DynamicCuckooFilter::InsertBatch(const std::string_view* keys, size_t n,
                                      DynamicStatus* statuses) {
  ForEachHashGroup<64>(keys, n, [&](const uint64_t* hashes, size_t g, size_t start) {
    InsertHashBatch(hashes, g, statuses + start);
  });
}

uint64_t DynamicCuckooFilter::Size() const {
  return growing_ != nullptr ? growing_->Size() : rep_->legacy->Size();
}

size_t DynamicCuckooFilter::MemoryBytes() const {
  return growing_ != nullptr ? growing_->MemoryBytes() : rep_->legacy->MemoryBytes();
}

double DynamicCuckooFilter::ExpectedFpr() const {
  return growing_ != nullptr ? growing_->ExpectedFpr() : rep_->legacy->ExpectedFpr();
}

namespace dynamic_cuckoo {

const GrowingFilter* GrowingEngineOf(const DynamicCuckooFilter& f) { return f.growing_; }

}  // namespace dynamic_cuckoo

}  // namespace sstfilter
