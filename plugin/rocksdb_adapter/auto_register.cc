// Built into libsstfilter.so only: registering at load time is what lets
// stock tools (db_bench, ldb, sst_dump) use sstfilter via LD_PRELOAD.

#include <sstfilter/sstfilter.h>

namespace {

[[maybe_unused]] const int kRegistered =
    rocksdb::RegisterSstFilter(*rocksdb::ObjectLibrary::Default(), "");

}  // namespace
