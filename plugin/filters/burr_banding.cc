#include "filters/burr_banding.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "filters/burr_hashing.h"

namespace sstfilter {
namespace {

// A row on its way to a free pivot slot: the slot it is at, its bits from
// that slot on, its fingerprint.
struct Walk {
  uint64_t i;
  uint64_t row;
  uint32_t fp;
};

// Window tables. A walk crosses the pivots behind the band's front about
// two slots a step (one XOR, then the count of trailing zeros skips to the
// next set bit), and a walk at load 1.05 crosses about forty. Once the
// four slots of an aligned window are all pivots, the 16 combinations of
// their rows are fixed: for each pattern of a row's four bits there, the
// one combination that clears them (the pivots are triangular, so it is
// unique, and it is exactly what single steps would XOR in). A walk then
// crosses the window in one step: a load indexed by its four bits and an
// XOR. The system banded is the same, step for step, so the bytes are too.
//
// A window's table is built when its fourth pivot is set (15 XORs, once
// per four pivots) and dropped when one of its pivots is taken back out.
// Walks only read the slots from their bucket's first start to 63 past its
// last (a pivot row is a sum of rows that start no later), 192 slots with
// the format's buckets of 128 starts, so the tables are kept in a ring of
// kRingWindows entries (256 slots), 12.5 KiB, window w's at entry w %
// kRingWindows; a window whose entry a later one has taken, or whose table
// is not built, is crossed in single steps.
constexpr int kWindowLog = 2;
constexpr uint64_t kWindowMask = (uint64_t{1} << kWindowLog) - 1;
constexpr int kPatterns = 1 << (uint64_t{1} << kWindowLog);
constexpr uint64_t kRingWindows = 64;
constexpr uint64_t kNoWindow = ~uint64_t{0};

struct WindowTables {
  // Entry e holds window `window[e]` (a window w is at entry w %
  // kRingWindows), or kNoWindow. For a pattern p of the window's four
  // bits, `rows[e][p]` is the combination's bits from the window's end on
  // (64 of them: a pivot row covers 64 slots from its own), and `fps[e][p]`
  // its fingerprint bits.
  uint64_t window[kRingWindows];
  uint64_t rows[kRingWindows][kPatterns];
  uint32_t fps[kRingWindows][kPatterns];

  WindowTables() { std::fill(window, window + kRingWindows, kNoWindow); }

  // Builds window w's table from its four pivots (all set).
  void Build(uint64_t w, const uint64_t* pivot_rows, const uint32_t* pivot_fps) {
    const uint64_t e = w % kRingWindows;
    const uint64_t base = w << kWindowLog;
    uint64_t* r = rows[e];
    uint32_t* f = fps[e];
    r[0] = 0;
    f[0] = 0;
    // Pattern p's combination starts with the pivot at p's lowest set bit
    // k; what that pivot leaves of the window's bits is a pattern whose
    // lowest bit is above k, done before (k goes down).
    for (int k = static_cast<int>(kWindowMask); k >= 0; --k) {
      const uint64_t pivot = pivot_rows[base + k];
      const uint32_t fp = pivot_fps[base + k];
      const unsigned low = static_cast<unsigned>((pivot << k) & (kPatterns - 1));
      const uint64_t rest = pivot >> ((kWindowMask + 1) - k);
      for (unsigned p = 1u << k; p < kPatterns; p += 2u << k) {
        r[p] = r[p ^ low] ^ rest;
        f[p] = f[p ^ low] ^ fp;
      }
    }
    window[e] = w;
  }

  void Drop(uint64_t w) {
    if (window[w % kRingWindows] == w) window[w % kRingWindows] = kNoWindow;
  }
};

// Bands one layer: buckets left to right, each from its highest start
// down (burr_banding.h).
class Bander {
 public:
  Bander(const std::vector<uint64_t>& hashes, uint64_t slots, const BurrTuning& tuning,
         BurrBandedLayer* layer, std::vector<uint64_t>* bumped)
      : hashes_(hashes.data()),
        n_(hashes.size()),
        slots_(slots),
        log_(tuning.bucket_log),
        thresholds_(tuning.thresholds),
        layer_(layer),
        rows_(layer->rows.data()),
        rhs_(layer->rhs.data()),
        tables_(new WindowTables),
        bumped_(bumped) {}

  void Run() {
    size_t end = 0;
    for (size_t first = 0; first < n_; first = end) {
      const uint64_t bucket = Start(first) >> log_;
      end = first + 1;
      while (end < n_ && (Start(end) >> log_) == bucket) ++end;
      BandBucket(bucket, first, end);
    }
    layer_->window_steps = window_steps_;
  }

 private:
  struct Fill {
    uint32_t offset;  // of the key in its bucket
    uint64_t slot;
  };

  uint64_t Start(size_t key) const { return BurrHashing::Start(hashes_[key], slots_); }

  // Keys [first, end) of `bucket`, from the highest start down. A key whose
  // row cancels with a fingerprint that does not sets the bucket's
  // threshold: the smallest coded value above its offset. The keys below it
  // are bumped, those already in taken back out (their pivots were the
  // last set, so clearing them undoes them exactly).
  void BandBucket(uint64_t bucket, size_t first, size_t end) {
    const uint64_t base = bucket << log_;
    if (fills_.size() < end - first) fills_.resize(end - first);
    size_t num_fills = 0;
    for (size_t k = end; k-- > first;) {
      const uint64_t h = hashes_[k];
      Walk w{Start(k), BurrHashing::Row(h), BurrHashing::Fingerprint(h)};
      const uint32_t offset = static_cast<uint32_t>(w.i - base);
      if (__builtin_expect(WalkToFreeSlot(&w), 1)) {
        rows_[w.i] = w.row;
        rhs_[w.i] = w.fp;
        fills_[num_fills++] = Fill{offset, w.i};
        BuildIfFull(w.i >> kWindowLog);
        continue;
      }
      if (w.fp == 0) continue;  // implied by the rows in
      unsigned code = 1;
      while (code < 3 && thresholds_[code] <= offset) ++code;
      const uint32_t threshold = thresholds_[code];
      while (num_fills > 0 && fills_[num_fills - 1].offset < threshold) Clear(fills_[--num_fills].slot);
      layer_->codes[bucket] = static_cast<uint8_t>(code);
      for (size_t j = first; j < end && Start(j) - base < threshold; ++j) bumped_->push_back(hashes_[j]);
      break;
    }
    layer_->pivots += num_fills;
  }

  // Walks `w` right from its start: at each pivot its row has a bit at,
  // XORs that pivot in, a window at a time where the window's table is
  // built. Returns true at a free slot (*w is then the new pivot: its slot,
  // its row from there, bit 0 set, and its fingerprint), false if the row
  // cancelled out (w->fp is then what is left of the fingerprint).
  SSTFILTER_ALWAYS_INLINE bool WalkToFreeSlot(Walk* w) {
    uint64_t i = w->i;
    uint64_t row = w->row;
    uint32_t fp = w->fp;
    const WindowTables& t = *tables_;
    for (;;) {
      uint64_t win = i >> kWindowLog;
      if (t.window[win % kRingWindows] == win) {
        const uint64_t first_win = win;
        // The window's bits of the row (none below i) pick the
        // combination; the row goes on from the next window. A row that
        // cancels stays 0 (pattern 0's combination is 0).
        const uint64_t e = win % kRingWindows;
        const unsigned sh = static_cast<unsigned>(i & kWindowMask);
        const unsigned pattern = static_cast<unsigned>((row << sh) & (kPatterns - 1));
        fp ^= t.fps[e][pattern];
        row = (row >> ((kWindowMask + 1) - sh)) ^ t.rows[e][pattern];
        for (++win; t.window[win % kRingWindows] == win; ++win) {
          const uint64_t* rows = t.rows[win % kRingWindows];
          const uint32_t* fps = t.fps[win % kRingWindows];
          const unsigned q = static_cast<unsigned>(row & (kPatterns - 1));
          fp ^= fps[q];
          row = (row >> (kWindowMask + 1)) ^ rows[q];
        }
        i = win << kWindowLog;
        window_steps_ += win - first_win;
        if (__builtin_expect(row == 0, 0)) break;
      }
      const int skip = __builtin_ctzll(row);
      i += static_cast<uint64_t>(skip);
      row >>= skip;
      const uint64_t pivot = rows_[i];
      if (pivot == 0) {
        *w = Walk{i, row, fp};
        return true;
      }
      row ^= pivot;
      fp ^= rhs_[i];
      if (__builtin_expect(row == 0, 0)) break;
    }
    w->fp = fp;
    return false;
  }

  void Clear(uint64_t slot) {
    rows_[slot] = 0;
    rhs_[slot] = 0;
    tables_->Drop(slot >> kWindowLog);
  }

  SSTFILTER_ALWAYS_INLINE void BuildIfFull(uint64_t win) {
    const uint64_t* r = rows_ + (win << kWindowLog);
    if ((r[0] != 0) & (r[1] != 0) & (r[2] != 0) & (r[3] != 0)) tables_->Build(win, rows_, rhs_);
  }

  const uint64_t* hashes_;
  size_t n_;
  uint64_t slots_;
  int log_;
  const uint32_t* thresholds_;
  BurrBandedLayer* layer_;
  uint64_t* rows_;
  uint32_t* rhs_;
  std::unique_ptr<WindowTables> tables_;
  std::vector<uint64_t>* bumped_;
  std::vector<Fill> fills_;  // the open bucket's pivots, in the order set
  size_t window_steps_ = 0;
};

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
  const uint64_t buckets = (starts + (uint64_t{1} << tuning.bucket_log) - 1) >> tuning.bucket_log;
  layer->slots = slots;
  layer->rows.assign(slots, 0);
  layer->rhs.assign(slots, 0);
  layer->codes.assign(buckets, 0);
  layer->pivots = 0;
  layer->window_steps = 0;
  Bander(hashes, slots, tuning, layer, bumped).Run();
}

}  // namespace sstfilter
