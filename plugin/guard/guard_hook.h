// Where the key guard follows writes: the memtable insert, the one place
// every write path of RocksDB meets. A Put through GuardedDB, a
// TransactionDB's commit (pessimistic or optimistic, any write policy), a
// WriteBatchWithIndex, a write through GetBaseDB(): each ends as entries
// inserted into a column family's MemTableRep, before the write's sequence
// number becomes visible to readers.
//
// GuardedDB::Open wraps each column family's memtable_factory in a
// GuardHookFactory. Every MemTableRep it creates hands each entry to the
// family's GuardHook before the entry enters the memtable; the hook makes
// the guard contain every key an entry can make visible (any type but the
// deletions). Deletes are counted, never erased (docs/design/key_guard.md).
//
// Until GuardedDB attaches a family (after Open's load or rebuild, which
// read the memtables recovery filled), the hook lets entries pass: nothing
// but recovery writes before Open returns.
//
// The factory answers to its inner factory's name, so that the OPTIONS file
// RocksDB writes names a memtable any tool can open.

#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include <rocksdb/db.h>
#include <rocksdb/memtablerep.h>

namespace sstfilter {

class GuardFamily;

// One column family's hook. Thread safety: OnEntry from any number of
// writer threads at once (allow_concurrent_memtable_write); Attach and
// Detach while no write runs (Open, CreateColumnFamily, Close).
class GuardHook {
 public:
  // From now on entries go to `g`; `changed(arg, g)` runs after each entry
  // that added a key the guard did not contain, or counted a delete (the
  // re-presize check).
  using Changed = void (*)(void* arg, GuardFamily* g);
  void Attach(GuardFamily* g, Changed changed, void* arg);
  void Detach();
  // One memtable entry: varint32 internal key length, internal key (user
  // key, then 8 bytes of sequence << 8 | type), value. An entry the hook
  // cannot read switches the family's guard off.
  void OnEntry(const char* entry);
  // The rep gave a key handle that is not the entry's buffer (a rep that
  // allocates nodes around its keys): no entry can be read.
  void Unreadable();

 private:
  std::atomic<GuardFamily*> family_{nullptr};
  Changed changed_ = nullptr;
  void* arg_ = nullptr;
};

// Wraps `inner` (null: RocksDB's default, a skip list). NotSupported for a
// factory whose entries the hook cannot read (HashLinkListRepFactory
// allocates nodes around its keys).
rocksdb::Status NewGuardHookFactory(std::shared_ptr<rocksdb::MemTableRepFactory> inner,
                                    std::shared_ptr<GuardHook> hook,
                                    std::shared_ptr<rocksdb::MemTableRepFactory>* out);

}  // namespace sstfilter
