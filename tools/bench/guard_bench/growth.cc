#include "growth.h"

#include <rocksdb/write_batch.h>

#include <cstdio>

#include "workload.h"

namespace guard_bench {

void ReportGrowth(sstfilter::GuardedDB* guard, rocksdb::DB* writes,
                  const std::function<std::string(uint64_t)>& key, uint64_t first_key,
                  double growth, uint64_t keys_at_open, double bits_at_open,
                  uint64_t fpr_queries, double target_fpr) {
  const auto start = Clock::now();
  uint64_t next = first_key;
  double worst = 0;
  uint64_t worst_keys = 0;
  for (;;) {
    const sstfilter::GuardStats now = guard->GetGuardStats();
    const double now_bits = now.memory_bytes * 8.0 / now.keys;
    if (now_bits > worst) {
      worst = now_bits;
      worst_keys = now.keys;
    }
    if (now.keys >= growth * static_cast<double>(keys_at_open)) break;
    rocksdb::WriteBatch b;
    for (int j = 0; j < 1000; ++j) b.Put(key(next++), "");
    writes->Write(rocksdb::WriteOptions(), &b);
  }
  const sstfilter::GuardStats grown = guard->GetGuardStats();
  const double grown_bits = grown.memory_bytes * 8.0 / grown.keys;
  std::fprintf(stderr, "growth: %llu keys in %.1f s\n",
               static_cast<unsigned long long>(grown.keys), Since(start));
  std::printf("| bits/key after growing to %.0fx the keys at open (%llu) | %.2f (%.2fx at open) "
              "| <= 1.40x: %s |\n",
              growth, static_cast<unsigned long long>(grown.keys), grown_bits,
              grown_bits / bits_at_open, grown_bits / bits_at_open <= 1.4 ? "holds" : "MISSED");
  std::printf("| highest bits/key while growing (at %llu keys; after every 1000) | %.2f "
              "(%.2fx at open) | |\n",
              static_cast<unsigned long long>(worst_keys), worst, worst / bits_at_open);
  std::printf("| re-presizes while growing | %llu (%.2f s in all) | |\n",
              static_cast<unsigned long long>(grown.represizes), grown.represize_seconds);
  const uint64_t ruled_before = guard->RuledOut();
  for (uint64_t i = 0; i < fpr_queries; ++i) {
    std::string v;
    guard->KeyMayExist(rocksdb::ReadOptions(), key(i) + "z", &v);
  }
  const double grown_fpr =
      1.0 - static_cast<double>(guard->RuledOut() - ruled_before) / fpr_queries;
  std::printf("| measured FPR after growing (%llu absent keys) | %.4f%% | <= %.3f%%: %s |\n",
              static_cast<unsigned long long>(fpr_queries), grown_fpr * 100, target_fpr * 100,
              grown_fpr <= target_fpr ? "holds" : "MISSED");
}

}  // namespace guard_bench
