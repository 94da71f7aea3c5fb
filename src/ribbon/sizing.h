// How many columns, slots and bytes a ribbon filter needs, and its false-
// positive rate: the estimates before a build (for n keys and a bits/key
// budget or a rate) and the exact rate of a built filter.
//
// The exact rate of a filter: an absent key goes to layer L with the
// probability that every earlier layer bumped it (its start there fell below
// its bucket's threshold), and there matches 2^-cols of its start block. So
//
//   rate = sum over L of reach_L * (live_r * 2^-r + live_r1 * 2^-(r+1)) / S_L
//   reach_0 = 1,  reach_{L+1} = reach_L * bumped_L / S_L
//
// with S_L the layer's starts, live_r / live_r1 its non-bumped starts in r /
// r+1-column blocks and bumped_L the others (the last layer bumps nothing).
// This assumes only ideal hashes; tests/ribbon/fp_rate_test.cc checks it
// against measured rates.
#ifndef BLOCKBLOOM_SRC_RIBBON_SIZING_H_
#define BLOCKBLOOM_SRC_RIBBON_SIZING_H_

#include <cstdint>

#include "src/ribbon/view.h"

namespace blockbloom::internal::ribbon {

// r whole columns, and the share `frac` of queries that check one more.
struct ColumnPlan {
  int r = 1;
  double frac = 0;
};

// The columns for a rate p in (0, 1): r = floor(log2(1/p)) and the share f
// with 2^-r (1 - f/2) = p (r at most kMaxResultBits; rates below 2^-31 get
// 31 columns).
ColumnPlan ColumnsForFpRate(double fp_rate);
// 2^-r (1 - frac/2).
double FpRateOfColumns(const ColumnPlan& plan);

// Non-bumped starts of block b in a layer of `num_blocks` blocks whose
// bucket has bump threshold `threshold` (all of them in the last layer).
uint32_t LiveStarts(uint32_t block, uint32_t num_blocks, uint32_t threshold,
                    bool last_layer);

// Estimates before a build, from the measured share of a layer's keys that
// go on to the next (4.9% at the defaults, 5.6% with pre-bumping: 301,090
// bytes estimated against 301,258 built at 300k keys and 0.42%), and below
// kSmallLayerKeys keys from the one layer the builder tries first (0.98
// keys per slot).
uint64_t EstimatedSlots(uint64_t num_keys);
// The rate n keys get in a budget of bits_per_key (codes included).
double EstimatedFpRate(uint64_t num_keys, double bits_per_key);
// The payload bytes n keys need for a rate.
uint64_t EstimatedPayloadBytes(uint64_t num_keys, double fp_rate);

// The exact expected rate of a built filter (above).
double ExactFpRate(const RibbonView& view);

}  // namespace blockbloom::internal::ribbon

#endif  // BLOCKBLOOM_SRC_RIBBON_SIZING_H_
