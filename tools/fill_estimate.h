// What a filter's bits say about it: how full it is, and from that how many
// distinct keys it holds (useful when the key count is not stored, as in the
// compact encoding, or to see how many of the keys added were duplicates).
//
// The model, for ideal hashes. A filter has b blocks of 16 lanes of w bits,
// M = 16*w*b bits in all. A key picks one block (probability 1/b each), k
// distinct lanes of it (each lane is in a key's lane set with probability
// k/16: the lane sets are the images of {0..k-1} under the affine maps of
// GF(16), which treat every lane alike) and one bit of each (1/w each). So a
// given bit is set by a given key with probability
//
//   q = (1/b) * (k/16) * (1/w) = k/M,
//
// and a block holding i keys has 16w(1 - (1 - k/(16w))^i) bits set on
// average. Block loads i are Binomial(n, 1/b), and E[(1-x)^i] over that mix
// is (1 - x/b)^n, so the whole filter's expected fill ratio is
//
//   f(n) = 1 - (1 - k/M)^n,   hence   n = ln(1 - f) / ln(1 - k/M).
//
// (n is the library's estimator, internal::EstimateKeys of
// src/memory/fill_stats.h, which the mutable filters use too.)
// Keys setting the same bits (duplicates) count once: this estimates
// distinct keys. The standard error is the delta method on Var(set bits),
// computed exactly for this model (two bits in one block but different lanes
// are set together by one key with probability k(k-1)/240 /(b w^2), the
// affine lane sets being pairwise balanced; two bits of one lane never are).
#ifndef BLOCKBLOOM_TOOLS_FILL_ESTIMATE_H_
#define BLOCKBLOOM_TOOLS_FILL_ESTIMATE_H_

#include <cstdint>

#include "absl/types/span.h"
#include "blockbloom/sizing.h"

namespace blockbloom::cli {

struct FillStats {
  uint64_t set_bits = 0;
  uint64_t total_bits = 0;
  double fill_ratio() const {
    return total_bits == 0 ? 0.0
                           : static_cast<double>(set_bits) /
                                 static_cast<double>(total_bits);
  }
};

// Counts the set bits of a filter's bits (Filter::bits()).
FillStats CountSetBits(absl::Span<const uint8_t> bits);

// The expected fill ratio f(n) of a filter of `shape` holding `num_keys`
// distinct keys.
double ExpectedFillRatio(const FilterShape& shape, double num_keys);

struct KeyEstimate {
  double keys = 0;       // +infinity if every bit is set
  double std_error = 0;  // +infinity if every bit is set
  bool saturated() const;
};

// Distinct keys in a filter of `shape` with `set_bits` of its bits set. The
// shape must be valid and set_bits at most its number of bits.
KeyEstimate EstimateDistinctKeys(const FilterShape& shape, uint64_t set_bits);

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_FILL_ESTIMATE_H_
