// The registry of filter kinds: the one line that makes a kind exist.
//
// A kind is its own files plus its descriptor's name in RegisteredKinds
// (and its include here); filter_kind.h says what a descriptor holds and
// docs/design/planner.md ("Adding a kind") what else a new kind touches.
// The order is AllFilterTypes()'s: append new kinds at the end.

#pragma once

#include "filters/bloom_kind.h"
#include "filters/burr_kind.h"
#include "filters/cuckoo_kind.h"
#include "filters/filter_kind.h"
#include "filters/fuse_kind.h"
#include "filters/small_filter.h"

namespace sstfilter {

using RegisteredKinds = KindList<BloomDescriptor, CuckooDescriptor, FuseDescriptor, BurrDescriptor>;

// Kind bytes are part of the format: one kind each, never 0, never the
// small form's 5.
static_assert(KindBytesAreFree(RegisteredKinds{}, FilterKind{0}, kSmallFormKind),
              "two registered kinds share a trailer kind byte, or one takes 0 or 5");

}  // namespace sstfilter
