// What a filter's set bits say about it: how many keys it holds and how often
// it answers "may contain" for a key it does not hold. Used by the mutable
// filters (BloomFilter, CountingFilter, ScalableFilter); the derivations are
// in src/memory/fill_stats.cc.
#ifndef BLOCKBLOOM_SRC_MEMORY_FILL_STATS_H_
#define BLOCKBLOOM_SRC_MEMORY_FILL_STATS_H_

#include <cstdint>
#include <vector>

#include "src/core/layout.h"

namespace blockbloom::internal {

// The number of distinct keys that most likely set `set_bits` of the
// `total_bits` bits (16 * lane_bits * num_blocks) of a filter with k probes:
// the inverse of E[set bits | n keys] = M (1 - (1 - k/M)^n). For a saturated
// filter (every bit set) it returns the count for M - 1/2 set bits, a lower
// bound. 0 for an empty filter.
double EstimateKeys(uint64_t set_bits, uint64_t total_bits, int k);

// The exact probability that a random key not in the filter answers "may
// contain", given the filter's bits (for an ideal hash of that key): the mean
// over blocks of the block's pass probability
//
//   (1/240) sum over the 240 lane sets S of prod_{L in S} fill(L) / w,
//
// fill(L) being the number of set bits of lane L. Feed it every block's lane
// fills, then read Result().
class FpRateAccumulator {
 public:
  FpRateAccumulator(int num_probes, int lane_bits);

  // fill[L]: set bits (or non-zero counters) in lane L of the next block, in
  // [0, lane_bits].
  void AddBlock(const uint16_t fill[kLanes]);
  // The mean pass probability of the blocks added so far (0 if none).
  double Result();

 private:
  // Blocks are evaluated 16 at a time, one block per vector lane, so that the
  // products vectorize.
  static constexpr int kGroup = 16;
  void Flush();

  int k_;
  std::vector<uint8_t> lanes_;   // the 240 lane sets, k lane numbers each
  std::vector<float> fraction_;  // fill -> fill / w, for fill in [0, w]
  alignas(64) float group_[kLanes][kGroup];
  int in_group_ = 0;
  uint64_t blocks_ = 0;
  double sum_ = 0;
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_MEMORY_FILL_STATS_H_
