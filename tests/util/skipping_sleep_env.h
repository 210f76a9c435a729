// An Env for tests of code that paces itself on the DB's Env.

#pragma once

#include <rocksdb/env.h>

#include <atomic>
#include <cstdint>

namespace sstfilter {
namespace test {

// An Env whose SleepForMicroseconds returns at once and moves its clock
// (NowMicros) ahead by the time asked: sleeps are counted, not waited.
// RocksDB's own threads keep their SystemClock.
class SkippingSleepEnv : public rocksdb::EnvWrapper {
 public:
  SkippingSleepEnv() : rocksdb::EnvWrapper(rocksdb::Env::Default()) {}
  const char* Name() const override { return "SkippingSleepEnv"; }
  uint64_t NowMicros() override { return target()->NowMicros() + skipped_us_.load(); }
  void SleepForMicroseconds(int micros) override { skipped_us_ += static_cast<uint64_t>(micros); }
  uint64_t skipped_us() const { return skipped_us_.load(); }

 private:
  std::atomic<uint64_t> skipped_us_{0};
};

}  // namespace test
}  // namespace sstfilter
