#include "tools/fill_estimate.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "src/memory/fill_stats.h"

namespace blockbloom::cli {
namespace {

double TotalBits(const FilterShape& shape) {
  return static_cast<double>(shape.num_blocks) * 16.0 * shape.lane_bits;
}

}  // namespace

FillStats CountSetBits(absl::Span<const uint8_t> bits) {
  FillStats stats;
  stats.total_bits = uint64_t{8} * bits.size();
  size_t i = 0;
  for (; i + 8 <= bits.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, bits.data() + i, sizeof(word));
    stats.set_bits += static_cast<uint64_t>(std::popcount(word));
  }
  for (; i < bits.size(); ++i) {
    stats.set_bits += static_cast<uint64_t>(std::popcount(bits[i]));
  }
  return stats;
}

double ExpectedFillRatio(const FilterShape& shape, double num_keys) {
  const double q = shape.num_probes / TotalBits(shape);
  return -std::expm1(num_keys * std::log1p(-q));
}

bool KeyEstimate::saturated() const { return std::isinf(keys); }

KeyEstimate EstimateDistinctKeys(const FilterShape& shape, uint64_t set_bits) {
  const double m = TotalBits(shape);
  const double set = static_cast<double>(set_bits);
  KeyEstimate estimate;
  if (set_bits == 0) return estimate;
  if (set >= m) {
    estimate.keys = estimate.std_error =
        std::numeric_limits<double>::infinity();
    return estimate;
  }
  const double k = shape.num_probes;
  const double w = shape.lane_bits;
  const double b = static_cast<double>(shape.num_blocks);
  const double q = k / m;  // P(a given key sets a given bit)
  const double log_miss = std::log1p(-q);
  // The mean's inverse is the library's (src/memory/fill_stats.cc); the
  // standard error below is the tool's own.
  const double n = internal::EstimateKeys(set_bits, shape.size_bytes() * 8,
                                          shape.num_probes);
  estimate.keys = n;

  // Var(set bits) = sum over bits u of Var(X_u) + sum over u != v of
  // Cov(X_u, X_v), X_u = 1 if bit u is set. With r = P(bit unset) =
  // (1-q)^n, Cov = P(both unset) - r^2 = (1 - 2q + h)^n - r^2, where h is the
  // probability that one key sets both: k(k-1)/240 / (b w^2) for bits in
  // different lanes of one block, 0 otherwise. Written as r^2 * expm1(...)
  // to keep the digits of these tiny differences.
  const double r = std::exp(n * log_miss);
  const double h_lanes = k * (k - 1) / 240.0 / (b * w * w);
  const double one_minus_q_sq = (1 - q) * (1 - q);
  const double cov_lanes =
      r * r * std::expm1(n * std::log1p((h_lanes - q * q) / one_minus_q_sq));
  const double cov_other =
      r * r * std::expm1(n * std::log1p(-q * q / one_minus_q_sq));
  const double pairs_lanes = 15 * w;          // per bit: same block, other lane
  const double pairs_other = m - 15 * w - 1;  // same lane, or another block
  const double variance =
      m * (r * (1 - r) + pairs_lanes * cov_lanes + pairs_other * cov_other);
  // d E[set bits] / dn = -m * r * ln(1-q).
  const double slope = m * r * -log_miss;
  estimate.std_error = std::sqrt(std::max(variance, 0.0)) / slope;
  return estimate;
}

}  // namespace blockbloom::cli
