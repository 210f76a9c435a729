// Our out-of-tree declaration of RocksDB's FilterBitsBuilder and
// FilterBitsReader (plugin/rocksdb_adapter/filter_bits_decl.h) against RocksDB's
// own table/block_based/filter_policy_internal.h, from the source of the
// release being built against (SSTFILTER_ROCKSDB_SOURCE; tools/scripts/test.sh
// passes the source tools/scripts/rocksdb_source.sh built).
//
// At compile time: every method we declare exists in RocksDB's class with
// the same signature, and a class overriding exactly our pure methods is
// not abstract (RocksDB declares no pure virtual we lack, as 10.9's
// CalculateSpace). At run time: each method sits in the same vtable slot
// in both (Itanium C++ ABI: a pointer to a virtual member function holds
// 1 + its byte offset in the vtable).

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

#include "rocksdb/slice.h"
#include "rocksdb/status.h"
#include "rocksdb/version.h"
#include "table/block_based/filter_policy_internal.h"

// Our declaration, in a namespace of its own.
#include "rocksdb_adapter/rocksdb_internal_version.h"
namespace sstfilter_abi {
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;
#include "rocksdb_adapter/filter_bits_decl.h"
}  // namespace sstfilter_abi

namespace {

using RealBuilder = ROCKSDB_NAMESPACE::FilterBitsBuilder;
using RealReader = ROCKSDB_NAMESPACE::FilterBitsReader;
using OurBuilder = sstfilter_abi::FilterBitsBuilder;
using OurReader = sstfilter_abi::FilterBitsReader;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;

// The vtable slot of a pointer to a virtual member function, or -1.
template <typename M>
std::ptrdiff_t Slot(M m) {
  struct Rep {
    uintptr_t ptr;
    ptrdiff_t adj;
  } r;
  static_assert(sizeof(M) == sizeof(Rep), "not the Itanium C++ ABI");
  std::memcpy(&r, &m, sizeof(r));
  if ((r.ptr & 1) == 0) return -1;
  return static_cast<std::ptrdiff_t>((r.ptr - 1) / sizeof(void*));
}

// Each method: the same signature in both classes (a compile error
// otherwise), and its slot in each.
#define SSTFILTER_SLOTS(Real, Ours, Ret, Name, Args)                          \
  std::make_pair(Slot(static_cast<Ret(Real::*) Args>(&Real::Name)),          \
                 Slot(static_cast<Ret(Ours::*) Args>(&Ours::Name)))

TEST(RocksDBAbiTest, BuilderDeclarationMatchesRocksDBsHeader) {
  static_assert(std::has_virtual_destructor_v<RealBuilder>);
  const std::pair<std::ptrdiff_t, std::ptrdiff_t> slots[] = {
      SSTFILTER_SLOTS(RealBuilder, OurBuilder, void, AddKey, (const Slice&)),
#if SSTFILTER_HAS_ADD_KEY_AND_ALT
      SSTFILTER_SLOTS(RealBuilder, OurBuilder, void, AddKeyAndAlt, (const Slice&, const Slice&)),
#endif
      SSTFILTER_SLOTS(RealBuilder, OurBuilder, size_t, EstimateEntriesAdded, ()),
      SSTFILTER_SLOTS(RealBuilder, OurBuilder, Slice, Finish, (std::unique_ptr<const char[]>*)),
      SSTFILTER_SLOTS(RealBuilder, OurBuilder, Slice, Finish,
                      (std::unique_ptr<const char[]>*, Status*)),
      SSTFILTER_SLOTS(RealBuilder, OurBuilder, Status, MaybePostVerify, (const Slice&)),
      SSTFILTER_SLOTS(RealBuilder, OurBuilder, size_t, ApproximateNumEntries, (size_t)),
#if SSTFILTER_HAS_CALCULATE_SPACE
      SSTFILTER_SLOTS(RealBuilder, OurBuilder, size_t, CalculateSpace, (size_t)),
      SSTFILTER_SLOTS(RealBuilder, OurBuilder, double, EstimatedFpRate, (size_t, size_t)),
#endif
  };
  // Slots 0 and 1 are the destructors; ours follow in declaration order.
  std::ptrdiff_t expected = 2;
  for (const auto& [real, ours] : slots) {
    EXPECT_EQ(real, ours);
    EXPECT_EQ(ours, expected++);
  }
}

// Overrides exactly the methods we declare pure: abstract only if RocksDB
// has another pure virtual.
class AllOursBuilder : public RealBuilder {
 public:
  void AddKey(const Slice&) override {}
#if SSTFILTER_HAS_ADD_KEY_AND_ALT
  void AddKeyAndAlt(const Slice&, const Slice&) override {}
#endif
  size_t EstimateEntriesAdded() override { return 0; }
  using RealBuilder::Finish;
  Slice Finish(std::unique_ptr<const char[]>*) override { return Slice(); }
  size_t ApproximateNumEntries(size_t) override { return 0; }
#if SSTFILTER_HAS_CALCULATE_SPACE
  size_t CalculateSpace(size_t) override { return 0; }
  double EstimatedFpRate(size_t, size_t) override { return 0; }
#endif
};
static_assert(!std::is_abstract_v<AllOursBuilder>,
              "RocksDB's FilterBitsBuilder has a pure virtual filter_bits_decl.h lacks");

TEST(RocksDBAbiTest, ReaderDeclarationMatchesRocksDBsHeader) {
  static_assert(std::has_virtual_destructor_v<RealReader>);
  const std::pair<std::ptrdiff_t, std::ptrdiff_t> slots[] = {
      SSTFILTER_SLOTS(RealReader, OurReader, bool, MayMatch, (const Slice&)),
      SSTFILTER_SLOTS(RealReader, OurReader, void, MayMatch, (int, Slice**, bool*)),
  };
  std::ptrdiff_t expected = 2;
  for (const auto& [real, ours] : slots) {
    EXPECT_EQ(real, ours);
    EXPECT_EQ(ours, expected++);
  }
}

class AllOursReader : public RealReader {
 public:
  bool MayMatch(const Slice&) override { return true; }
  using RealReader::MayMatch;
};
static_assert(!std::is_abstract_v<AllOursReader>,
              "RocksDB's FilterBitsReader has a pure virtual filter_bits_decl.h lacks");

}  // namespace
