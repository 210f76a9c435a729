#include "guard/guard_hook.h"

#include <cstring>
#include <functional>

#include <rocksdb/version.h>

#include "format/hash.h"
#include "guard/guard_family.h"

#define SSTFILTER_ROCKSDB_AT_LEAST(major, minor) \
  (ROCKSDB_MAJOR > (major) || (ROCKSDB_MAJOR == (major) && ROCKSDB_MINOR >= (minor)))

namespace sstfilter {
namespace {

using rocksdb::MemTableRep;

// RocksDB's value types that remove a key (db/dbformat.h: kTypeDeletion,
// kTypeSingleDeletion, kTypeDeletionWithTimestamp). Range deletions go to
// a separate table RocksDB always builds with its own skip list. Every
// other type, known or new, may make the key visible.
bool IsDeletion(unsigned type) { return type == 0x0 || type == 0x7 || type == 0x14; }

// Reads a varint32 of at most 5 bytes; false if it does not end there.
bool ReadVarint32(const char** p, uint32_t* out) {
  uint32_t v = 0;
  for (unsigned shift = 0; shift <= 28; shift += 7) {
    const uint32_t byte = static_cast<unsigned char>(*(*p)++);
    v |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

uint64_t ReadFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

// Every call is forwarded to the inner rep; the inserts show the entry to
// the hook first.
class HookedRep : public MemTableRep {
 public:
  HookedRep(rocksdb::Allocator* allocator, MemTableRep* inner, std::shared_ptr<GuardHook> hook)
      : MemTableRep(allocator), inner_(inner), hook_(std::move(hook)) {}

  rocksdb::KeyHandle Allocate(const size_t len, char** buf) override {
    rocksdb::KeyHandle h = inner_->Allocate(len, buf);
    if (h != static_cast<void*>(*buf)) hook_->Unreadable();
    return h;
  }
  void Insert(rocksdb::KeyHandle h) override { Show(h), inner_->Insert(h); }
  bool InsertKey(rocksdb::KeyHandle h) override { return Show(h), inner_->InsertKey(h); }
  void InsertWithHint(rocksdb::KeyHandle h, void** hint) override {
    Show(h), inner_->InsertWithHint(h, hint);
  }
  bool InsertKeyWithHint(rocksdb::KeyHandle h, void** hint) override {
    return Show(h), inner_->InsertKeyWithHint(h, hint);
  }
  void InsertWithHintConcurrently(rocksdb::KeyHandle h, void** hint) override {
    Show(h), inner_->InsertWithHintConcurrently(h, hint);
  }
  bool InsertKeyWithHintConcurrently(rocksdb::KeyHandle h, void** hint) override {
    return Show(h), inner_->InsertKeyWithHintConcurrently(h, hint);
  }
  void InsertConcurrently(rocksdb::KeyHandle h) override {
    Show(h), inner_->InsertConcurrently(h);
  }
  bool InsertKeyConcurrently(rocksdb::KeyHandle h) override {
    return Show(h), inner_->InsertKeyConcurrently(h);
  }

  bool Contains(const char* key) const override { return inner_->Contains(key); }
  void MarkReadOnly() override { inner_->MarkReadOnly(); }
  void MarkFlushed() override { inner_->MarkFlushed(); }
  void Get(const rocksdb::LookupKey& k, void* args,
           bool (*callback)(void* arg, const char* entry)) override {
    inner_->Get(k, args, callback);
  }
// The virtuals RocksDB added later, each from the release that declares it
// (read from each tag's include/rocksdb/memtablerep.h): without a forward,
// the base's default would answer instead of the inner rep.
#if SSTFILTER_ROCKSDB_AT_LEAST(10, 7)
  rocksdb::Status GetAndValidate(
      const rocksdb::LookupKey& k, void* args, bool (*callback)(void* arg, const char* entry),
      bool allow_data_in_errors, bool detect_key_out_of_order,
      const std::function<rocksdb::Status(const char*, bool)>& validate) override {
    return inner_->GetAndValidate(k, args, callback, allow_data_in_errors,
                                  detect_key_out_of_order, validate);
  }
#elif SSTFILTER_ROCKSDB_AT_LEAST(9, 6)
  rocksdb::Status GetAndValidate(const rocksdb::LookupKey& k, void* args,
                                 bool (*callback)(void* arg, const char* entry),
                                 bool allow_data_in_errors) override {
    return inner_->GetAndValidate(k, args, callback, allow_data_in_errors);
  }
#endif
#if SSTFILTER_ROCKSDB_AT_LEAST(10, 4)
  void BatchPostProcess() override { inner_->BatchPostProcess(); }
#endif
#if SSTFILTER_ROCKSDB_AT_LEAST(11, 1)
  rocksdb::Status MultiGet(size_t num_keys, const char* const* keys, void** args,
                           bool (*callback)(void* arg, const char* entry),
                           bool allow_data_in_errors, bool detect_key_out_of_order,
                           const std::function<rocksdb::Status(const char*, bool)>& validate)
      override {
    return inner_->MultiGet(num_keys, keys, args, callback, allow_data_in_errors,
                            detect_key_out_of_order, validate);
  }
#endif
  uint64_t ApproximateNumEntries(const rocksdb::Slice& start_ikey,
                                 const rocksdb::Slice& end_ikey) override {
    return inner_->ApproximateNumEntries(start_ikey, end_ikey);
  }
  void UniqueRandomSample(const uint64_t num_entries, const uint64_t target_sample_size,
                          std::unordered_set<const char*>* entries) override {
    inner_->UniqueRandomSample(num_entries, target_sample_size, entries);
  }
  size_t ApproximateMemoryUsage() override { return inner_->ApproximateMemoryUsage(); }
  Iterator* GetIterator(rocksdb::Arena* arena) override { return inner_->GetIterator(arena); }
  Iterator* GetDynamicPrefixIterator(rocksdb::Arena* arena) override {
    return inner_->GetDynamicPrefixIterator(arena);
  }
  bool IsMergeOperatorSupported() const override { return inner_->IsMergeOperatorSupported(); }
  bool IsSnapshotSupported() const override { return inner_->IsSnapshotSupported(); }

 private:
  // Before the inner insert: the entry is visible to no reader yet.
  void Show(rocksdb::KeyHandle h) { hook_->OnEntry(static_cast<const char*>(h)); }

  std::unique_ptr<MemTableRep> inner_;
  std::shared_ptr<GuardHook> hook_;
};

class HookFactory : public rocksdb::MemTableRepFactory {
 public:
  HookFactory(std::shared_ptr<rocksdb::MemTableRepFactory> inner, std::shared_ptr<GuardHook> hook)
      : inner_(std::move(inner)), hook_(std::move(hook)) {}

  using rocksdb::MemTableRepFactory::CreateMemTableRep;
  MemTableRep* CreateMemTableRep(const MemTableRep::KeyComparator& cmp,
                                 rocksdb::Allocator* allocator,
                                 const rocksdb::SliceTransform* transform,
                                 rocksdb::Logger* logger) override {
    return Wrap(allocator, inner_->CreateMemTableRep(cmp, allocator, transform, logger));
  }
  MemTableRep* CreateMemTableRep(const MemTableRep::KeyComparator& cmp,
                                 rocksdb::Allocator* allocator,
                                 const rocksdb::SliceTransform* transform, rocksdb::Logger* logger,
                                 uint32_t column_family_id) override {
    return Wrap(allocator,
                inner_->CreateMemTableRep(cmp, allocator, transform, logger, column_family_id));
  }
  // The inner factory's identity: the OPTIONS file names a plain memtable.
  const char* Name() const override { return inner_->Name(); }
  std::string GetId() const override { return inner_->GetId(); }
  bool IsInsertConcurrentlySupported() const override {
    return inner_->IsInsertConcurrentlySupported();
  }
  bool CanHandleDuplicatedKey() const override { return inner_->CanHandleDuplicatedKey(); }

 private:
  MemTableRep* Wrap(rocksdb::Allocator* allocator, MemTableRep* inner) const {
    return new HookedRep(allocator, inner, hook_);
  }
  std::shared_ptr<rocksdb::MemTableRepFactory> inner_;
  std::shared_ptr<GuardHook> hook_;
};

}  // namespace

void GuardHook::Attach(GuardFamily* g, Changed changed, void* arg) {
  changed_ = changed;
  arg_ = arg;
  family_.store(g, std::memory_order_release);
}

void GuardHook::Detach() { family_.store(nullptr, std::memory_order_release); }

void GuardHook::Unreadable() {
  if (GuardFamily* g = family_.load(std::memory_order_acquire)) g->Disable();
}

void GuardHook::OnEntry(const char* entry) {
  GuardFamily* g = family_.load(std::memory_order_acquire);
  if (g == nullptr) return;
  const char* p = entry;
  uint32_t ikey_len = 0;
  if (!ReadVarint32(&p, &ikey_len) || ikey_len < 8) {
    g->Disable();
    return;
  }
  const uint64_t packed = ReadFixed64(p + ikey_len - 8);
  const unsigned type = static_cast<unsigned>(packed & 0xff);
  if (IsDeletion(type)) {
    g->CountDelete();
  } else if (!g->Add(KeyHash(p, ikey_len - 8), packed >> 8)) {
    return;
  }
  changed_(arg_, g);
}

rocksdb::Status NewGuardHookFactory(std::shared_ptr<rocksdb::MemTableRepFactory> inner,
                                    std::shared_ptr<GuardHook> hook,
                                    std::shared_ptr<rocksdb::MemTableRepFactory>* out) {
  if (inner == nullptr) inner = std::make_shared<rocksdb::SkipListFactory>();
  if (std::strcmp(inner->Name(), "HashLinkListRepFactory") == 0) {
    return rocksdb::Status::NotSupported(
        "sstfilter guard: memtable_factory HashLinkListRepFactory (its nodes hide the keys from "
        "the guard); use the skip list, vector or hash skip list memtable");
  }
  *out = std::make_shared<HookFactory>(std::move(inner), std::move(hook));
  return rocksdb::Status::OK();
}

}  // namespace sstfilter
