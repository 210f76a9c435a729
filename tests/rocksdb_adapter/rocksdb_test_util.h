// Shared pieces of the RocksDB integration tests: keys and statistics
// (temporary directory and keys: db_test_util.h).

#pragma once

#include "util/db_test_util.h"

#include <gtest/gtest.h>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace sstfilter {
namespace test {

inline uint64_t Ticker(const rocksdb::Options& options, rocksdb::Tickers t) {
  return options.statistics->getTickerCount(t);
}

}  // namespace test
}  // namespace sstfilter
