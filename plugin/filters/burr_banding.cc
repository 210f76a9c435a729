#include "filters/burr_banding.h"

#include <algorithm>
#include <cmath>

#include "filters/burr_hashing.h"

namespace sstfilter {
namespace {

struct Fill {
  uint32_t offset;  // of the key in its bucket
  uint64_t slot;
};

// A row on its way to a free pivot slot: the slot it is at, its bits from
// that slot on, its fingerprint. Kept in registers by the stepping loop.
struct Walk {
  uint64_t i;
  uint64_t row;
  uint32_t fp;
};

// Bands the keys [begin, end) (whole buckets) of a layer. The stepping
// loop (StepLanes) advances several lanes over disjoint ranges one XOR
// step each in turn, so that their dependent load chains overlap (a step
// is a load, an XOR, a count of trailing zeros and a shift: about 8
// cycles of latency, which one lane alone leaves the core idle through);
// a lane is called only when its walk ends.
//
// A lane's rows may walk right past its range. While the lane to its
// right is still banding, a walk about to read a slot at or past `limit`
// pauses the lane instead: the bucket it was settling is taken back out
// (its pivots are the newest the lane set, and nothing else read them), and
// the lane resumes from that bucket, with no limit, once every lane to its
// right is done. So no lane ever reads a pivot that can still be taken
// back, and every bucket's pivots are still the last ones set in its
// region when its threshold undoes them.
class Lane {
 public:
  Lane(const uint64_t* hashes, size_t begin, size_t end, uint64_t limit, uint64_t slots,
       const BurrTuning& tuning, BurrBandedLayer* layer)
      : hashes_(hashes),
        end_(end),
        limit_(limit),
        slots_(slots),
        log_(tuning.bucket_log),
        thresholds_(tuning.thresholds),
        layer_(layer),
        rows_(layer->rows.data()),
        rhs_(layer->rhs.data()),
        bucket_end_(begin) {}

  // Sets *w to the lane's first walk; false if it has no keys.
  bool Begin(Walk* w) { return NextBucket(w); }
  bool paused() const { return paused_; }
  uint64_t limit() const { return limit_; }
  const std::vector<uint64_t>& bumped() const { return bumped_; }

  // Resumes a paused lane with no limit (every lane to its right is done);
  // false if nothing is left.
  bool Resume(Walk* w) {
    limit_ = ~uint64_t{0};
    paused_ = false;
    bucket_end_ = bucket_first_;
    return NextBucket(w);
  }

  // The walk found a free slot: it becomes the row's pivot. Each of these
  // sets *w to the lane's next walk, or returns false if the lane is done
  // (or paused).
  // Inlined into the stepping loop: once per key, and its common case is
  // the next key of the same bucket.
  SSTFILTER_ALWAYS_INLINE bool Placed(const Walk& ended, Walk* w) {
    rows_[ended.i] = ended.row;
    rhs_[ended.i] = ended.fp;
    fills_[num_fills_++] = Fill{Offset(), ended.i};
    if (__builtin_expect(key_ == bucket_first_, 0)) return EndBucket(w);
    --key_;
    StartWalk(w);
    return true;
  }

  // The row cancelled out: implied by the rows in if its fingerprint did
  // too; otherwise the key does not fit, and every key of the bucket
  // below the smallest threshold above it is bumped, those already in
  // taken back out.
  bool Cancelled(const Walk& ended, Walk* w) {
    if (ended.fp == 0) return NextKey(w);
    const uint32_t offset = Offset();
    unsigned code = 1;
    while (code < 3 && thresholds_[code] <= offset) ++code;
    const uint32_t threshold = thresholds_[code];
    while (num_fills_ > 0 && fills_[num_fills_ - 1].offset < threshold) {
      Clear(fills_[--num_fills_].slot);
    }
    layer_->codes[bucket_] = static_cast<uint8_t>(code);
    const uint64_t base = bucket_ << log_;
    for (size_t j = bucket_first_; j < bucket_end_; ++j) {
      if (BurrHashing::Start(hashes_[j], slots_) - base >= threshold) break;
      bumped_.push_back(hashes_[j]);
    }
    layer_->pivots += num_fills_;
    return NextBucket(w);
  }

  // The walk reached the limit: pause (see the class comment).
  bool Pause() {
    for (size_t j = 0; j < num_fills_; ++j) Clear(fills_[j].slot);
    num_fills_ = 0;
    paused_ = true;
    return false;
  }

 private:
  void Clear(uint64_t slot) {
    rows_[slot] = 0;
    rhs_[slot] = 0;
  }

  SSTFILTER_ALWAYS_INLINE void StartWalk(Walk* w) {
    const uint64_t h = hashes_[key_];
    start_ = BurrHashing::Start(h, slots_);
    *w = Walk{start_, BurrHashing::Row(h), BurrHashing::Fingerprint(h)};
  }

  bool NextKey(Walk* w) {
    if (key_ == bucket_first_) return EndBucket(w);
    --key_;
    StartWalk(w);
    return true;
  }

  // Every key of the bucket is in: count its pivots, go to the next.
  __attribute__((noinline)) bool EndBucket(Walk* w) {
    layer_->pivots += num_fills_;
    return NextBucket(w);
  }

  bool NextBucket(Walk* w) {
    bucket_first_ = bucket_end_;
    num_fills_ = 0;
    if (bucket_first_ >= end_) return false;
    bucket_ = BurrHashing::Start(hashes_[bucket_first_], slots_) >> log_;
    bucket_end_ = bucket_first_ + 1;
    while (bucket_end_ < end_ && (BurrHashing::Start(hashes_[bucket_end_], slots_) >> log_) == bucket_) {
      ++bucket_end_;
    }
    key_ = bucket_end_ - 1;
    // A key fills at most one slot: room for the whole bucket, so Placed
    // stores without a capacity check.
    if (fills_.size() < bucket_end_ - bucket_first_) fills_.resize(bucket_end_ - bucket_first_);
    StartWalk(w);
    return true;
  }

  uint32_t Offset() const { return static_cast<uint32_t>(start_ - (bucket_ << log_)); }

  const uint64_t* hashes_;
  size_t end_;
  uint64_t limit_;
  uint64_t slots_;
  int log_;
  const uint32_t* thresholds_;
  BurrBandedLayer* layer_;
  uint64_t* rows_;
  uint32_t* rhs_;

  size_t bucket_first_ = 0;
  size_t bucket_end_ = 0;
  uint64_t bucket_ = 0;
  size_t key_ = 0;
  uint64_t start_ = 0;
  bool paused_ = false;
  // The current bucket's pivots, in the order they were set: fills_[0,
  // num_fills_).
  std::vector<Fill> fills_;
  size_t num_fills_ = 0;
  std::vector<uint64_t> bumped_;
};

// Steps the K lanes in turn until one of them is done or paused; returns
// its index. The walks live in registers; lanes are called only when a
// walk ends.
template <int K>
int StepLanes(Lane* const* lane, Walk* walk, uint64_t* rows, const uint32_t* rhs) {
  // Separate scalars, not an array whose address escapes, so that the
  // compiler keeps them in registers.
  uint64_t i[K], row[K], limit[K];
  uint32_t fp[K];
#pragma GCC unroll 4
  for (int j = 0; j < K; ++j) {
    i[j] = walk[j].i;
    row[j] = walk[j].row;
    fp[j] = walk[j].fp;
    limit[j] = lane[j]->limit();
  }
  for (;;) {
#pragma GCC unroll 4
    for (int j = 0; j < K; ++j) {
      const uint64_t pivot = rows[i[j]];
      if (__builtin_expect(pivot != 0, 1)) {
        row[j] ^= pivot;
        fp[j] ^= rhs[i[j]];
        if (__builtin_expect(row[j] != 0, 1)) {
          const int skip = __builtin_ctzll(row[j]);
          i[j] += static_cast<uint64_t>(skip);
          row[j] >>= skip;
          if (__builtin_expect(i[j] < limit[j], 1)) continue;
        }
      }
      // The walk ended (free slot, cancelled row, or the limit).
      const Walk ended{i[j], row[j], fp[j]};
      Walk next{};
      bool more;
      if (pivot == 0) {
        more = lane[j]->Placed(ended, &next);
      } else if (ended.row == 0) {
        more = lane[j]->Cancelled(ended, &next);
      } else {
        more = lane[j]->Pause();
      }
      if (!more) {
        for (int k = 0; k < K; ++k) walk[k] = Walk{i[k], row[k], fp[k]};
        return j;
      }
      i[j] = next.i;
      row[j] = next.row;
      fp[j] = next.fp;
    }
  }
}

// Runs `lanes` (with their first walks) until every one is done or paused.
void RunLanes(std::vector<Lane*> lanes, std::vector<Walk> walks, uint64_t* rows, const uint32_t* rhs) {
  while (!lanes.empty()) {
    int done;
    switch (lanes.size()) {
      case 1: done = StepLanes<1>(lanes.data(), walks.data(), rows, rhs); break;
      case 2: done = StepLanes<2>(lanes.data(), walks.data(), rows, rhs); break;
      case 3: done = StepLanes<3>(lanes.data(), walks.data(), rows, rhs); break;
      default: done = StepLanes<4>(lanes.data(), walks.data(), rows, rhs); break;
    }
    lanes.erase(lanes.begin() + done);
    walks.erase(walks.begin() + done);
  }
}

// Lanes stepped in turn, fewer for small layers. Four overlap enough of
// one another's load chains to band markedly faster than one; two do not
// (the walk ends' mispredictions flush both). Each boundary between lanes
// costs 50 to 200 free slots (the left lane's last buckets find the
// region to their right already filled, and are bumped), so only layers
// of 64k keys a lane or more are split.
constexpr int kLanes = 4;
constexpr size_t kMinKeysPerLane = size_t{1} << 16;

}  // namespace

uint64_t BurrLayerSlots(size_t num_keys, const BurrTuning& tuning) {
  // A layer of one block has one start, and its rows are 64 random bits:
  // up to about 56 keys are independent with high probability.
  if (num_keys <= 56) return 64;
  const double starts = std::ceil(static_cast<double>(num_keys) / tuning.load);
  const uint64_t slots = static_cast<uint64_t>(starts) + kBurrRibbonWidth - 1;
  return std::max<uint64_t>(64, (slots + 32) / 64 * 64);
}

void BandLayer(const std::vector<uint64_t>& hashes, uint64_t slots, const BurrTuning& tuning,
               BurrBandedLayer* layer, std::vector<uint64_t>* bumped) {
  const uint64_t starts = slots - (kBurrRibbonWidth - 1);
  const int log = tuning.bucket_log;
  const uint64_t buckets = (starts + (uint64_t{1} << log) - 1) >> log;
  layer->slots = slots;
  layer->rows.assign(slots, 0);
  layer->rhs.assign(slots, 0);
  layer->codes.assign(buckets, 0);
  layer->pivots = 0;

  // Lane j takes the keys of buckets [j, j + 1) * buckets / lanes, and may
  // read no slot of the next lane's first bucket onwards.
  const size_t n = hashes.size();
  const int lanes = static_cast<int>(std::clamp<size_t>(n / kMinKeysPerLane, 1, kLanes));
  std::vector<size_t> first_key(lanes + 1, n);
  std::vector<uint64_t> first_slot(lanes + 1, ~uint64_t{0});
  first_key[0] = 0;
  for (int j = 1; j < lanes; ++j) {
    const uint64_t bucket = buckets * j / lanes;
    first_slot[j] = bucket << log;
    first_key[j] = static_cast<size_t>(
        std::lower_bound(hashes.begin(), hashes.end(), bucket, [&](uint64_t h, uint64_t b) {
          return (BurrHashing::Start(h, slots) >> log) < b;
        }) - hashes.begin());
  }
  std::vector<Lane> lane;
  lane.reserve(lanes);
  std::vector<Lane*> running;
  std::vector<Walk> walks;
  for (int j = 0; j < lanes; ++j) {
    lane.emplace_back(hashes.data(), first_key[j], first_key[j + 1], first_slot[j + 1], slots, tuning,
                      layer);
    Walk w;
    if (lane.back().Begin(&w)) {
      running.push_back(&lane.back());
      walks.push_back(w);
    }
  }
  uint64_t* rows = layer->rows.data();
  const uint32_t* rhs = layer->rhs.data();
  RunLanes(running, walks, rows, rhs);
  for (int j = lanes - 1; j-- > 0;) {
    Walk w;
    if (lane[j].paused() && lane[j].Resume(&w)) RunLanes({&lane[j]}, {w}, rows, rhs);
  }
  for (const Lane& l : lane) bumped->insert(bumped->end(), l.bumped().begin(), l.bumped().end());
}

}  // namespace sstfilter
