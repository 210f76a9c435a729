// range_filter_bench: what the range filter (sstfilter/range_filter.h)
// answers for empty ranges, what it costs in bytes, and how fast it builds
// and decides, on one table of --keys keys per key shape.
//
//   range_filter_bench [--keys=1000000] [--queries=1000000] [--repeats=5]
//
// Columns: FPR over --queries empty ranges of L consecutive ids (uniform:
// anywhere; correlated: starting right after a key), the bound
// L / 2^(B-2) and the ratio to it; bytes per key; build (keys/s, median of
// --repeats builds); decision (ns, median of --repeats passes): one call
// of RangeTableFilter's function on the table's properties, as RocksDB
// makes it when an iterator opens the table.

#include <rocksdb/table_properties.h>
#include <sstfilter/range_filter.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "range/range_filter.h"
#include "range/range_test_util.h"

namespace {

using sstfilter::test::Shape;
using Clock = std::chrono::steady_clock;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Flags {
  uint64_t keys = 1000000, queries = 1000000;
  int repeats = 5;
};

Flags Parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strncmp(a, "--keys=", 7) == 0) {
      f.keys = std::strtoull(a + 7, nullptr, 10);
    } else if (std::strncmp(a, "--queries=", 10) == 0) {
      f.queries = std::strtoull(a + 10, nullptr, 10);
    } else if (std::strncmp(a, "--repeats=", 10) == 0) {
      f.repeats = std::atoi(a + 10);
    } else {
      std::fprintf(stderr, "usage: range_filter_bench [--keys=N] [--queries=N] [--repeats=N]\n");
      std::exit(2);
    }
  }
  return f;
}

struct Table {
  std::vector<uint64_t> ids;  // sorted, distinct
  std::vector<std::string> keys;
};

Table MakeTable(Shape shape, uint64_t n) {
  Table t;
  uint64_t state = 2024;
  while (t.ids.size() < n) {
    for (uint64_t i = t.ids.size(); i < n; ++i) {
      t.ids.push_back(sstfilter::test::SplitMix(&state) % sstfilter::test::MaxId(shape));
    }
    std::sort(t.ids.begin(), t.ids.end());
    t.ids.erase(std::unique(t.ids.begin(), t.ids.end()), t.ids.end());
  }
  for (uint64_t id : t.ids) t.keys.push_back(sstfilter::test::Key(shape, id));
  return t;
}

// An empty range [lo, lo + length) of ids, uniform or right after a key.
uint64_t EmptyRangeStart(Shape shape, const Table& t, uint64_t length, bool correlated,
                         uint64_t* state) {
  for (;;) {
    const uint64_t lo =
        correlated ? t.ids[sstfilter::test::SplitMix(state) % t.ids.size()] + 1
                   : sstfilter::test::SplitMix(state) % (sstfilter::test::MaxId(shape) - length);
    if (lo + length > sstfilter::test::MaxId(shape)) continue;
    const auto next = std::lower_bound(t.ids.begin(), t.ids.end(), lo);
    if (next == t.ids.end() || *next >= lo + length) return lo;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Flags flags = Parse(argc, argv);
  std::printf("One table of %llu keys per shape; %llu empty ranges per cell.\n\n",
              static_cast<unsigned long long>(flags.keys),
              static_cast<unsigned long long>(flags.queries));
  std::printf("| shape | bits/key | bytes/key | build Mkeys/s | decision ns | L | FPR uniform | "
              "FPR correlated | bound L/2^(B-2) | worst / bound |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (Shape shape : {Shape::kBigEndian64, Shape::kUserDecimal, Shape::kTablePrefixed}) {
    const Table t = MakeTable(shape, flags.keys);
    for (double bits : {10.0, 16.0, 22.0}) {
      std::string filter;
      std::vector<double> build_rates;
      for (int r = 0; r < flags.repeats; ++r) {
        const auto start = Clock::now();
        sstfilter::RangeFilterBuilder b(bits);
        for (const std::string& k : t.keys) b.AddKey(k);
        filter = b.Finish();
        const double s = std::chrono::duration<double>(Clock::now() - start).count();
        build_rates.push_back(static_cast<double>(t.keys.size()) / s / 1e6);
      }
      rocksdb::TableProperties props;
      props.comparator_name = "leveldb.BytewiseComparator";
      props.user_collected_properties[sstfilter::kRangeFilterProperty] = filter;
      sstfilter::RangeFilterReader reader;
      if (!reader.Parse(filter)) {
        std::fprintf(stderr, "the filter did not parse\n");
        return 1;
      }
      for (uint64_t length : {1, 16, 256}) {
        double fpr[2];
        std::vector<double> decision_ns;
        for (int correlated = 0; correlated < 2; ++correlated) {
          uint64_t state = 7 + length, positives = 0;
          std::vector<std::pair<std::string, std::string>> ranges;
          for (uint64_t q = 0; q < flags.queries; ++q) {
            const uint64_t lo = EmptyRangeStart(shape, t, length, correlated != 0, &state);
            const std::string a = sstfilter::test::Key(shape, lo);
            const std::string b = sstfilter::test::Key(shape, lo + length);
            positives += reader.MayContain(a, b) ? 1 : 0;
            if (ranges.size() < 10000) ranges.emplace_back(a, b);
          }
          fpr[correlated] = static_cast<double>(positives) / static_cast<double>(flags.queries);
          // The decision as RocksDB asks it: the table filter's function on
          // the table's properties.
          for (int r = 0; r < flags.repeats; ++r) {
            std::vector<std::function<bool(const rocksdb::TableProperties&)>> filters;
            for (const auto& [a, b] : ranges) filters.push_back(sstfilter::RangeTableFilter(a, b));
            uint64_t admitted = 0;
            const auto start = Clock::now();
            for (const auto& f : filters) admitted += f(props) ? 1 : 0;
            const double s = std::chrono::duration<double>(Clock::now() - start).count();
            decision_ns.push_back(s * 1e9 / static_cast<double>(filters.size()));
            if (admitted > filters.size()) return 1;  // keeps the loop
          }
        }
        const double bound = static_cast<double>(length) / std::exp2(bits - 2);
        std::printf("| %s | %.0f | %.3f | %.1f | %.0f | %llu | %.5f%% | %.5f%% | %.5f%% | %.2f |\n",
                    sstfilter::test::ShapeName(shape), bits,
                    static_cast<double>(filter.size()) / static_cast<double>(t.keys.size()),
                    Median(build_rates), Median(decision_ns),
                    static_cast<unsigned long long>(length), 100 * fpr[0], 100 * fpr[1],
                    100 * bound, std::max(fpr[0], fpr[1]) / bound);
      }
    }
  }
  return 0;
}
