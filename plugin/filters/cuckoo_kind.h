// The cuckoo filter's registration (filter_kind.h says what a descriptor
// holds; kinds.h lists it): three names, one per CuckooVariant, and two
// trailer kinds, one per bucket table.

#pragma once

#include <string>
#include <vector>

#include "filters/cuckoo_filter.h"
#include "filters/cuckoo_reader.h"
#include "filters/filter_kind.h"
#include "filters/filter_plan.h"
#include "filters/filter_type.h"
#include "format/trailer.h"

namespace sstfilter {

// A cuckoo filter of `variant` at `bits_per_key` (within
// [kMinCuckooBitsPerKey, kMaxBitsPerKey]), or the byte-sized Bloom filter
// of that budget where no table fits it (planner.h says why).
FilterPlan PlanCuckoo(size_t num_keys, double bits_per_key, CuckooVariant variant);

struct CuckooDescriptor {
  // Indexed by CuckooVariant: a type's variant is its variant.
  static constexpr FilterTypeInfo kTypes[] = {
      {"cuckoo",
       "sstfilter's cuckoo, variant and fingerprint picked for the lowest FPR "
       "within the budget",
       kMinCuckooBitsPerKey, kMaxBitsPerKey},
      {"cuckoo_plain", "sstfilter's cuckoo, plain buckets", kMinPlainCuckooBitsPerKey,
       kMaxBitsPerKey},
      {"cuckoo_semisorted", "sstfilter's cuckoo, semi-sorted buckets", kMinCuckooBitsPerKey,
       kMaxBitsPerKey}};
  static constexpr FilterKind kKinds[] = {kCuckooPlainKind, kCuckooSemiSortedKind};

  static FilterPlan Plan(int variant, size_t num_keys, double bits_per_key) {
    return PlanCuckoo(num_keys, bits_per_key, static_cast<CuckooVariant>(variant));
  }
  static bool Write(const FilterPlan& plan, std::vector<uint64_t>* hashes, std::string* dst) {
    AppendCuckooFilter(plan.shape<CuckooShape>(), *hashes, dst);
    return true;  // a failed placement grows the table (AppendCuckooFilter)
  }
  // The unpacked table (two bytes a slot up to 16-bit fingerprints, four
  // above), grown by an eighth for the rare placement that needs a larger
  // table, and the stash.
  static size_t WorkingBytes(const FilterPlan& plan, size_t num_keys) {
    const CuckooShape shape = plan.shape<CuckooShape>();
    const size_t slot_bytes = shape.fp_bits <= 16 ? 2 : 4;
    const size_t slots = static_cast<size_t>(shape.num_buckets) * kSlotsPerBucket;
    return (slots + slots / 8 + kSlotsPerBucket) * slot_bytes + 16 * (num_keys / 64 + 64);
  }

  using Layout = CuckooLayout;
  // Checks the trailer's parameters, the header and the payload's size
  // against the shapes the builder writes; fills *layout on success.
  // Defined in cuckoo_kind.cc.
  static bool Parse(const Trailer& trailer, const char* payload, size_t payload_size,
                    Layout* layout);
  // Plain tables get one reader; semi-sorted ones with f = 8..24 a reader
  // whose bucket codec has the width compiled in.
  template <typename Fn>
  static auto Read(const Trailer& trailer, const char* payload, size_t /*payload_size*/,
                   const Layout& layout, Fn& fn) {
    if (trailer.kind == kCuckooPlainKind) {
      return fn(CuckooReader<PlainBucketCodec>(trailer.param_a, payload, layout));
    }
    return WithSemiSortedReader<8, 24>(trailer.param_a, payload, layout, fn);
  }

 private:
  // fn(CuckooReader<FixedSemiSortedCodec<f>>) if First <= f <= Last,
  // else fn(CuckooReader<SemiSortedBucketCodec>).
  template <int First, int Last, typename Fn>
  static auto WithSemiSortedReader(int fp_bits, const char* payload, const Layout& layout,
                                   Fn& fn) {
    if constexpr (First > Last) {
      return fn(CuckooReader<SemiSortedBucketCodec>(fp_bits, payload, layout));
    } else {
      if (fp_bits == First) {
        return fn(CuckooReader<FixedSemiSortedCodec<First>>(First, payload, layout));
      }
      return WithSemiSortedReader<First + 1, Last>(fp_bits, payload, layout, fn);
    }
  }
};

// The registered cuckoo types, one per CuckooVariant.
inline constexpr FilterType kCuckooType{kCuckooPlainKind, static_cast<int>(CuckooVariant::kAuto)};
inline constexpr FilterType kCuckooPlainType{kCuckooPlainKind,
                                             static_cast<int>(CuckooVariant::kPlain)};
inline constexpr FilterType kCuckooSemiSortedType{kCuckooPlainKind,
                                                  static_cast<int>(CuckooVariant::kSemiSorted)};

}  // namespace sstfilter
