// Our declaration of RocksDB's FilterBitsBuilder and FilterBitsReader, for
// out-of-tree builds (rocksdb_internal.h includes it inside RocksDB's
// namespace). The layout, virtual for virtual and in order, is that of
// table/block_based/filter_policy_internal.h in the release being built
// against, read from each release's header (docs/rocksdb_versions.md):
//   7.0 - 9.5   ~, AddKey, EstimateEntriesAdded, Finish, Finish(status),
//               MaybePostVerify, ApproximateNumEntries
//   9.6 - 10.8  AddKeyAndAlt after AddKey
//   10.9 - 11.8 CalculateSpace and EstimatedFpRate after
//               ApproximateNumEntries
// Releases after the newest one read are refused (rocksdb_internal.h).
// The reader is ~, MayMatch, MayMatch(batch) in every release.
//
// No include guard: tests/rocksdb_adapter/rocksdb_abi_test.cc includes it a second time,
// in a namespace of its own, to compare it with RocksDB's real header.
// Expects Slice, Status, <memory> and the SSTFILTER_HAS_* macros
// (rocksdb_internal_version.h) in scope.

// Builds one filter from keys; RocksDB calls (AddKey* Finish)*, then
// MaybePostVerify on each finished filter.
class FilterBitsBuilder {
 public:
  virtual ~FilterBitsBuilder() {}
  virtual void AddKey(const Slice& key) = 0;
#if SSTFILTER_HAS_ADD_KEY_AND_ALT
  // Adds `key` and `alt` (its prefix, with a prefix extractor and whole-key
  // filtering); either may repeat what was added before.
  virtual void AddKeyAndAlt(const Slice& key, const Slice& alt) = 0;
#endif
  virtual size_t EstimateEntriesAdded() = 0;
  virtual Slice Finish(std::unique_ptr<const char[]>* buf) = 0;
  virtual Slice Finish(std::unique_ptr<const char[]>* buf, Status* /*status*/) {
    return Finish(buf);
  }
  virtual Status MaybePostVerify(const Slice& /*filter_content*/) { return Status::OK(); }
  virtual size_t ApproximateNumEntries(size_t bytes) = 0;
#if SSTFILTER_HAS_CALCULATE_SPACE
  // Bytes of a filter over `num_entries` keys, metadata included.
  virtual size_t CalculateSpace(size_t num_entries) = 0;
  // FPR of the filter Finish returns over `num_entries` keys in `bytes`.
  virtual double EstimatedFpRate(size_t num_entries, size_t bytes) = 0;
#endif
};

// Queries one filter. RocksDB keeps the filter bytes alive while it holds
// the reader (both live in the cached filter block).
class FilterBitsReader {
 public:
  virtual ~FilterBitsReader() {}
  virtual bool MayMatch(const Slice& entry) = 0;
  virtual void MayMatch(int num_keys, Slice** keys, bool* may_match) {
    for (int i = 0; i < num_keys; ++i) may_match[i] = MayMatch(*keys[i]);
  }
};
