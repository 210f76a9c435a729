// A leveldb::Env that counts reads of table files, for the LevelDB tests and
// tools/leveldb_bench. LevelDB keeps no statistics; every block it fetches
// from an SST (data, index, filter, footer) is one RandomAccessFile::Read,
// so the count shows what a filter saves. Test and benchmark code: not part
// of the library.

#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include <leveldb/env.h>
#include <leveldb/slice.h>
#include <leveldb/status.h>

namespace sstfilter {

class ReadCountingEnv : public leveldb::EnvWrapper {
 public:
  // Forwards everything to Env::Default(), which must outlive this Env.
  ReadCountingEnv() : EnvWrapper(leveldb::Env::Default()) {}

  // LevelDB opens tables with this (logs and the manifest use
  // SequentialFile), and takes ownership of *result: the API is a raw
  // owning pointer, hence the release().
  leveldb::Status NewRandomAccessFile(const std::string& fname,
                                      leveldb::RandomAccessFile** result) override {
    leveldb::RandomAccessFile* file = nullptr;
    leveldb::Status s = target()->NewRandomAccessFile(fname, &file);
    *result = nullptr;
    if (s.ok()) {
      *result = std::make_unique<CountingFile>(
                    std::unique_ptr<leveldb::RandomAccessFile>(file), &reads_)
                    .release();
    }
    return s;
  }

  // Reads of table files since construction or the last ResetReads().
  uint64_t reads() const { return reads_.load(std::memory_order_relaxed); }
  void ResetReads() { reads_.store(0, std::memory_order_relaxed); }

 private:
  class CountingFile : public leveldb::RandomAccessFile {
   public:
    CountingFile(std::unique_ptr<leveldb::RandomAccessFile> file,
                 std::atomic<uint64_t>* reads)
        : file_(std::move(file)), reads_(reads) {}

    leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result,
                         char* scratch) const override {
      reads_->fetch_add(1, std::memory_order_relaxed);
      return file_->Read(offset, n, result, scratch);
    }

   private:
    std::unique_ptr<leveldb::RandomAccessFile> file_;
    std::atomic<uint64_t>* reads_;  // the Env's counter; the Env outlives the DB
  };

  std::atomic<uint64_t> reads_{0};
};

}  // namespace sstfilter
