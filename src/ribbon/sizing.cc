#include "src/ribbon/sizing.h"

#include <algorithm>
#include <cmath>

#include "src/ribbon/layout.h"

namespace blockbloom::internal::ribbon {
namespace {

// The measured shares of a layer's keys that are bumped to the next
// (100k: 4.73%; 4.7-4.9% over 10k-10M; with pre-bumping from a spill of 20
// rows 5.5-5.6%, from 32 rows 5.0% at 1M and 10M).
constexpr double kBumpShare = 0.049;
constexpr double kBumpSharePreBump = 0.056;
constexpr double kBumpSharePreBumpLarge = 0.050;
// Keys per slot of the one-layer filters of fewer than kSmallLayerKeys keys
// (builder.cc, SingleLayerBlocksFrom): the fewest blocks that banded every
// key averaged 0.97-0.99 keys per slot from 700 to 2,047 keys (1,000 keys:
// 16.25 blocks; 2,000: 32.4).
constexpr double kSingleLayerLoad = 0.98;

}  // namespace

ColumnPlan ColumnsForFpRate(double fp_rate) {
  const double bits = -std::log2(fp_rate);
  int r = static_cast<int>(std::floor(bits + 1e-12));
  if (r < 1) return {1, 0.0};
  if (r > kMaxResultBits) return {kMaxResultBits, 0.0};
  double frac = 2.0 * (1.0 - fp_rate * std::ldexp(1.0, r));
  if (frac < 1e-9) frac = 0;
  if (frac >= 1.0) {
    if (r == kMaxResultBits) return {kMaxResultBits, 0.0};
    return {r + 1, 0.0};
  }
  return {r, frac};
}

double FpRateOfColumns(const ColumnPlan& plan) {
  return std::ldexp(1.0, -plan.r) * (1.0 - plan.frac / 2.0);
}

uint32_t LiveStarts(uint32_t block, uint32_t num_blocks, uint32_t threshold,
                    bool last_layer) {
  const uint32_t first = (block & 1) ? 64 : 0;  // offsets [first, first + 64)
  if (block + 1 == num_blocks) {  // only start 64 * block, offset `first`
    return last_layer || first >= threshold ? 1 : 0;
  }
  if (last_layer || threshold <= first) return 64;
  return first + 64 <= threshold ? 0 : first + 64 - threshold;
}

uint64_t EstimatedSlots(uint64_t num_keys) {
  if (num_keys > 0 && num_keys < kSmallLayerKeys) {
    const double blocks =
        std::ceil(static_cast<double>(num_keys) / (64 * kSingleLayerLoad));
    return 64 *
           std::min<uint64_t>(static_cast<uint64_t>(blocks),
                              BlocksForKeys(num_keys, LoadForKeys(num_keys)));
  }
  const double share = !PreBumps(num_keys) ? kBumpShare
                       : PreBumpSpill(num_keys) == kPreBumpSpill
                           ? kBumpSharePreBump
                           : kBumpSharePreBumpLarge;
  uint64_t slots = 0;
  double keys = static_cast<double>(num_keys);
  for (int layer = 0; keys >= 0.5 && layer < kMaxLayers; ++layer) {
    const uint64_t k = static_cast<uint64_t>(std::ceil(keys));
    slots += uint64_t{BlocksForKeys(k, LoadForKeys(k))} * 64;
    keys *= share;
  }
  return slots;
}

double EstimatedFpRate(uint64_t num_keys, double bits_per_key) {
  if (num_keys == 0) return 0;
  const double slots = static_cast<double>(EstimatedSlots(num_keys));
  const double code_bits = 2.0 * slots / kBucketSize;
  const double cols =
      (bits_per_key * static_cast<double>(num_keys) - code_bits) / slots;
  const int r =
      std::clamp(static_cast<int>(std::floor(cols)), 1, kMaxResultBits);
  return FpRateOfColumns({r, std::clamp(cols - r, 0.0, 1.0)});
}

uint64_t EstimatedPayloadBytes(uint64_t num_keys, double fp_rate) {
  if (num_keys == 0) return 0;
  const ColumnPlan plan = ColumnsForFpRate(fp_rate);
  const double slots = static_cast<double>(EstimatedSlots(num_keys));
  return static_cast<uint64_t>(
      std::ceil(slots * (plan.r + plan.frac) / 8 + slots / 4 / kBucketSize));
}

double ExactFpRate(const RibbonView& view) {
  double reach = 1.0;
  double rate = 0.0;
  const int r = view.result_bits;
  for (int layer = 0; layer < view.num_layers; ++layer) {
    const RibbonLayerView& lv = view.layers[layer];
    const bool last = layer + 1 == view.num_layers;
    uint64_t live_r = 0;
    uint64_t live_r1 = 0;
    for (uint32_t block = 0; block < lv.num_blocks; ++block) {
      const uint32_t code = BucketCode(lv.codes, block >> 1);
      const uint32_t live =
          LiveStarts(block, lv.num_blocks, view.bump_below[code], last);
      (block >= lv.upper_start ? live_r1 : live_r) += live;
    }
    const double starts = lv.num_starts;
    rate += reach *
            (static_cast<double>(live_r) * std::ldexp(1.0, -r) +
             static_cast<double>(live_r1) * std::ldexp(1.0, -r - 1)) /
            starts;
    reach *= (starts - static_cast<double>(live_r + live_r1)) / starts;
  }
  return rate;
}

}  // namespace blockbloom::internal::ribbon
