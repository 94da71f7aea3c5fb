// Key count and false-positive rate from a filter's bits.
//
// Count. A key lands in each block with probability 1/b, uses each lane with
// probability k/16 (every lane lies in 15k of the 240 lane sets) and, in a
// lane it uses, each of the w bits with probability 1/w. So a given bit is
// set by a given key with probability k/(16 w b) = k/M, M the filter's bits,
// independently across keys (ideal hash), and
//
//   E[set bits | n keys] = M (1 - (1 - k/M)^n)
//
// exactly: the binomial mixture of block loads does not change the mean,
// because the mean is a sum over single bits. Uneven block loads and the
// "one bit in each of k distinct lanes" rule make the bits of a block
// dependent, which widens the spread of the set-bit count around that mean
// but does not move it. Inverting the mean at the observed count T gives
//
//   n = ln(1 - T/M) / ln(1 - k/M),
//
// the classic Bloom-filter estimator (Swamidass and Baldi 2007) with the
// filter's M and k. Its relative error is about
//   sd(T) * (1 / (M - T)) / ln(M / (M - T)),
// small once a filter has more than a few blocks; tests/memory measures it.
//
// False-positive rate. A key not in the filter lands in block B with
// probability 1/b and picks one of the 240 lane sets S uniformly and, in each
// lane L of S, one bit uniformly. Given the filter, it passes with
// probability fill(B, L)/w in each lane independently, so
//
//   P(pass) = (1/b) sum_B (1/240) sum_S prod_{L in S} fill(B, L)/w
//
// exactly, for an ideal hash of the queried key. Unlike the model of
// src/core/sizing.cc (the expectation over all filters with n keys), this is
// the rate of this filter, so it holds for overfilled, merged, intersected or
// counting filters too. The 240 * k products per block are evaluated for 16
// blocks at a time, one block per SIMD lane of plain float arithmetic that
// the compiler vectorizes.
#include "src/memory/fill_stats.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace blockbloom::internal {

double EstimateKeys(uint64_t set_bits, uint64_t total_bits, int k) {
  if (set_bits == 0 || total_bits == 0) return 0;
  const double m = static_cast<double>(total_bits);
  double t = static_cast<double>(set_bits);
  if (t > m - 0.5) t = m - 0.5;
  return std::log1p(-t / m) / std::log1p(-k / m);
}

FpRateAccumulator::FpRateAccumulator(int num_probes, int lane_bits)
    : k_(num_probes) {
  const uint16_t* sets = LaneSetsFor(num_probes);
  lanes_.reserve(kLaneSets * static_cast<size_t>(num_probes));
  for (int sel = 0; sel < kLaneSets; ++sel) {
    for (uint32_t set = sets[sel]; set != 0; set &= set - 1) {
      lanes_.push_back(static_cast<uint8_t>(std::countr_zero(set)));
    }
  }
  fraction_.resize(static_cast<size_t>(lane_bits) + 1);
  for (int i = 0; i <= lane_bits; ++i) {
    fraction_[i] = static_cast<float>(i) / static_cast<float>(lane_bits);
  }
}

void FpRateAccumulator::AddBlock(const uint16_t fill[kLanes]) {
  const size_t last = fraction_.size() - 1;
  for (int lane = 0; lane < kLanes; ++lane) {
    group_[lane][in_group_] = fraction_[std::min<size_t>(fill[lane], last)];
  }
  if (++in_group_ == kGroup) Flush();
}

void FpRateAccumulator::Flush() {
  if (in_group_ == 0) return;
  // Unused slots of a partial group: zero fill, zero contribution.
  for (int j = in_group_; j < kGroup; ++j) {
    for (int lane = 0; lane < kLanes; ++lane) group_[lane][j] = 0;
  }
  alignas(64) float sum[kGroup] = {};
  const uint8_t* lanes = lanes_.data();
  for (int sel = 0; sel < kLaneSets; ++sel, lanes += k_) {
    alignas(64) float product[kGroup];
    const float* first = group_[lanes[0]];
    for (int j = 0; j < kGroup; ++j) product[j] = first[j];
    for (int x = 1; x < k_; ++x) {
      const float* next = group_[lanes[x]];
      for (int j = 0; j < kGroup; ++j) product[j] *= next[j];
    }
    for (int j = 0; j < kGroup; ++j) sum[j] += product[j];
  }
  for (int j = 0; j < kGroup; ++j) sum_ += sum[j];
  blocks_ += static_cast<uint64_t>(in_group_);
  in_group_ = 0;
}

double FpRateAccumulator::Result() {
  Flush();
  if (blocks_ == 0) return 0;
  return sum_ / kLaneSets / static_cast<double>(blocks_);
}

}  // namespace blockbloom::internal
