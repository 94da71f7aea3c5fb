// The false-positive rate of blockbloom's layout, exactly (for ideal hashes).
//
// Notation: n keys, b blocks, k probes, lanes of W bits, w = 1 - 1/W (the
// chance that one bit of a lane is not the one a key sets in it; 31/32). A key
// not in the set, with lane set Q and bit q_L in each lane L of Q, lands in a
// block holding i keys. It passes if every (L, q_L) was set by some key of the
// block. Given the other keys' lane sets S_1..S_i, each lane's bits are
// independent and uniform, so
//
//   P(pass | S_1..S_i) = prod_{L in Q} (1 - w^{load(L)}),
//   load(L) = #{m : L in S_m}.
//
// Expanding the product (inclusion-exclusion over the lanes A of Q that are
// all missed) and using the independence of the keys' lane sets:
//
//   P(pass | i) = sum_{A subset of Q} (-1)^|A| g(A)^i,
//   g(A) = E_S[ w^{|S intersect A|} ]   (S uniform over the 240 lane sets).
//
// A block's load i is Binomial(n, 1/b), and E[g^i] = (1 - (1 - g)/b)^n, so
//
//   FPR = E_Q sum_{A subset of Q} (-1)^|A| (1 - (1 - g(A))/b)^n.
//
// This keeps what the textbook formula drops: uneven block loads (the
// binomial), and the correlation between a key's lanes (the lane sets are not
// independent lanes, e.g. exactly k of them). Every query lane set gives the
// same rate: the lane sets are the images of {0..k-1} under the affine group
// of GF(16), and applying a group element to the query and to all sets maps
// the family onto itself. So Q = {0..k-1} alone is summed over. For each k,
// g(A) is kept as its overlap histogram (how many of the 240 sets meet A in j
// lanes, j = 0..k), from which g = sum_j count_j w^j / 240 for any lane
// width; subsets with equal histograms are merged. The histograms are
// computed once per k, lazily: 2^k subsets times at most 240 distinct sets
// (equal sets are merged: k = 16 has a single one).
#include "blockbloom/sizing.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <map>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/core/layout.h"
#include "src/core/sizing_internal.h"

namespace blockbloom {
namespace {

using internal::kLanes;
using internal::kLaneSets;
using internal::kMaxProbes;
using internal::LaneSet;

struct Term {
  std::array<int, kMaxProbes + 1> overlap_count;  // sets meeting A in j lanes
  double coefficient;                             // sum of (-1)^|A|
};

std::vector<Term> ComputeTerms(int k) {
  std::map<uint16_t, int> sets;  // every lane set, with its multiplicity
  for (int sel = 0; sel < kLaneSets; ++sel) {
    sets[LaneSet(k, static_cast<uint32_t>(sel))]++;
  }
  const uint32_t q = (1u << k) - 1;  // the lane set {0..k-1}: a = 1, b = 0
  std::map<std::array<int, kMaxProbes + 1>, double> merged;
  for (uint32_t a = q;; a = (a - 1) & q) {  // every subset A of Q
    std::array<int, kMaxProbes + 1> overlap_count = {};
    for (const auto& [s, s_count] : sets) {
      overlap_count[std::popcount(static_cast<uint32_t>(s) & a)] += s_count;
    }
    merged[overlap_count] += (std::popcount(a) & 1) ? -1.0 : 1.0;
    if (a == 0) break;
  }
  std::vector<Term> terms;
  for (const auto& [overlap_count, c] : merged) {
    if (c != 0) terms.push_back({overlap_count, c});
  }
  return terms;
}

const std::vector<Term>& TermsFor(int k) {
  static std::once_flag once[kMaxProbes + 1];
  static std::vector<Term> terms[kMaxProbes + 1];
  std::call_once(once[k], [k] { terms[k] = ComputeTerms(k); });
  return terms[k];
}

// Below this the alternating sum has lost too many digits to cancellation
// (its absolute error is about 1e-12), and the upper bound below takes over.
constexpr double kExactFloor = 1e-7;

// An upper bound without cancellation: lanes taken as independent, each bit
// of a block of load i set with probability 1 - (1 - k/(16 W))^i. It ignores
// the negative correlation of a block's lane loads (a key fills exactly k
// lanes), so it overestimates, by 0.7% at 6 bits/key, 1.6% at 10 and at most
// ~3% (k = 9-13); it is exact for k = 16. It is only used for rates below
// kExactFloor, where the filter is so sparse that i stays small.
double FpRateUpperBound(uint64_t n, uint64_t b, int k, double lane_bits) {
  const double nd = static_cast<double>(n), p = 1.0 / static_cast<double>(b);
  const double unset_per_key = 1.0 - k / (16.0 * lane_bits);
  if (b == 1) return std::pow(1.0 - std::pow(unset_per_key, nd), k);
  const double mean = nd * p;
  const double last = std::min(nd, mean + 40 * std::sqrt(mean) + 64);
  // Binomial(n, p) probabilities by the recurrence P(i+1) = P(i) (n-i)/(i+1)
  // p/(1-p), from P(0) = (1-p)^n.
  double pmf = std::exp(nd * std::log1p(-p)), sum = 0;
  for (double i = 0; i <= last; ++i) {
    sum += pmf * std::pow(1.0 - std::pow(unset_per_key, i), k);
    pmf *= (nd - i) / (i + 1) * (p / (1 - p));
  }
  return sum;
}

// The formula above for valid arguments; Neumaier summation because the
// terms alternate in sign and mostly cancel.
double FpRate(uint64_t n, uint64_t b, int k, double lane_bits) {
  if (n == 0) return 0;
  double w_pow[kMaxProbes + 1];
  for (int j = 0; j <= k; ++j) w_pow[j] = std::pow(1.0 - 1.0 / lane_bits, j);
  double sum = 0, compensation = 0;
  const double nd = static_cast<double>(n), bd = static_cast<double>(b);
  for (const Term& t : TermsFor(k)) {
    double g = 0;
    for (int j = 0; j <= k; ++j) g += t.overlap_count[j] * w_pow[j];
    g /= kLaneSets;
    const double x = t.coefficient * std::exp(nd * std::log1p(-(1 - g) / bd));
    const double next = sum + x;
    compensation +=
        std::abs(sum) >= std::abs(x) ? (sum - next) + x : (x - next) + sum;
    sum = next;
  }
  const double exact = std::clamp(sum + compensation, 0.0, 1.0);
  return exact >= kExactFloor ? exact : FpRateUpperBound(n, b, k, lane_bits);
}

// The rate is unimodal in k, so walk from the textbook optimum k = ln2 * m/n
// towards lower rates: a handful of evaluations instead of sixteen.
int BestK(uint64_t n, uint64_t b, double lane_bits, double* rate) {
  const double bits_per_key =
      n == 0
          ? kMaxProbes
          : 16.0 * lane_bits * static_cast<double>(b) / static_cast<double>(n);
  int k = std::clamp(static_cast<int>(std::lround(bits_per_key * 0.6931)), 1,
                     kMaxProbes);
  double best = FpRate(n, b, k, lane_bits);
  for (int step : {-1, 1}) {
    while (k + step >= 1 && k + step <= kMaxProbes) {
      const double r = FpRate(n, b, k + step, lane_bits);
      // On a tie keep the smaller k: prefer it when stepping down.
      if (step < 0 ? r <= best : r < best) {
        best = r;
        k += step;
      } else {
        break;
      }
    }
  }
  if (rate != nullptr) *rate = best;
  return k;
}

// The shape of `bits` bits of filter: whole 512-bit blocks, or, up to
// kSmallFilterMaxBits and if allowed, one block of lanes just wide enough.
FilterShape ShapeForBits(uint64_t bits, bool compact_small_filters) {
  FilterShape shape;
  if (compact_small_filters && bits <= internal::kSmallFilterMaxBits) {
    shape.num_blocks = 1;
    shape.lane_bits = static_cast<int>(std::max<uint64_t>(1, (bits + 15) / 16));
  } else {
    shape.num_blocks = std::max<uint64_t>(1, (bits + 511) / 512);
  }
  return shape;
}

bool ValidBlocks(uint64_t b) { return b >= 1 && b <= FilterShape::kMaxBlocks; }

absl::Status InvalidBlocks(uint64_t b) {
  return absl::InvalidArgumentError(
      absl::StrCat("num_blocks must be in [1, 2^32], got ", b));
}

bool ValidLaneBits(int w) { return w >= 1 && w <= FilterShape::kMaxLaneBits; }

absl::Status InvalidLaneBits(int w) {
  return absl::InvalidArgumentError(
      absl::StrCat("lane_bits must be in [1, 512], got ", w));
}

}  // namespace

absl::Status ValidateShape(const FilterShape& shape) {
  if (!ValidBlocks(shape.num_blocks)) return InvalidBlocks(shape.num_blocks);
  if (shape.num_probes < 1 || shape.num_probes > FilterShape::kMaxProbes) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_probes must be in [1, 16], got ", shape.num_probes));
  }
  if (!ValidLaneBits(shape.lane_bits)) return InvalidLaneBits(shape.lane_bits);
  return absl::OkStatus();
}

absl::StatusOr<FilterShape> ShapeForBitsPerKey(uint64_t num_keys,
                                               double bits_per_key,
                                               bool compact_small_filters) {
  if (num_keys == 0) {
    return absl::InvalidArgumentError(
        "num_keys must be positive to size a filter");
  }
  if (!std::isfinite(bits_per_key) || bits_per_key <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bits_per_key must be a positive finite number, got ", bits_per_key));
  }
  const long double bits =
      std::ceil(static_cast<long double>(num_keys) * bits_per_key);
  if (bits > 512.0L * FilterShape::kMaxBlocks) {
    return absl::OutOfRangeError(absl::StrCat(
        num_keys, " keys at ", bits_per_key,
        " bits/key need more than 2^32 blocks (256 GiB), the largest filter"));
  }
  FilterShape shape =
      ShapeForBits(static_cast<uint64_t>(bits), compact_small_filters);
  shape.num_probes =
      BestK(num_keys, shape.num_blocks, shape.lane_bits, nullptr);
  return shape;
}

absl::StatusOr<FilterShape> ShapeForFpRate(uint64_t num_keys, double fp_rate,
                                           bool compact_small_filters) {
  if (num_keys == 0) {
    return absl::InvalidArgumentError(
        "num_keys must be positive to size a filter");
  }
  if (!(fp_rate > 0 && fp_rate < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("fp_rate must be in (0, 1), got ", fp_rate));
  }
  double rate;
  BestK(num_keys, FilterShape::kMaxBlocks, 32, &rate);
  if (rate > fp_rate) {
    return absl::OutOfRangeError(absl::StrCat(
        "no filter of at most 2^32 blocks (256 GiB) holds ", num_keys,
        " keys at a false-positive rate of ", fp_rate, "; the best is ", rate));
  }
  // The best rate falls as bits are added: find the fewest that reach
  // fp_rate, first in whole blocks, then (small filters) in 16-bit steps of
  // a single block.
  auto reaches = [&](const FilterShape& shape) {
    double r;
    BestK(num_keys, shape.num_blocks, shape.lane_bits, &r);
    return r <= fp_rate;
  };
  uint64_t lo = 1, hi = FilterShape::kMaxBlocks;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (reaches({mid, 0, 32})) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  FilterShape shape = {lo, 0, 32};
  if (compact_small_filters && lo * 512 <= internal::kSmallFilterMaxBits) {
    uint64_t lo16 = 1, hi16 = lo * 32;  // in units of 16 bits
    while (lo16 < hi16) {
      const uint64_t mid = lo16 + (hi16 - lo16) / 2;
      if (reaches(ShapeForBits(16 * mid, true))) {
        hi16 = mid;
      } else {
        lo16 = mid + 1;
      }
    }
    shape = ShapeForBits(16 * lo16, true);
  }
  shape.num_probes =
      BestK(num_keys, shape.num_blocks, shape.lane_bits, nullptr);
  return shape;
}

absl::StatusOr<int> OptimalNumProbes(uint64_t num_keys, uint64_t num_blocks,
                                     int lane_bits) {
  if (!ValidBlocks(num_blocks)) return InvalidBlocks(num_blocks);
  if (!ValidLaneBits(lane_bits)) return InvalidLaneBits(lane_bits);
  return BestK(num_keys, num_blocks, lane_bits, nullptr);
}

absl::StatusOr<double> EstimatedFpRate(const FilterShape& shape,
                                       uint64_t num_keys) {
  if (absl::Status s = ValidateShape(shape); !s.ok()) return s;
  return FpRate(num_keys, shape.num_blocks, shape.num_probes, shape.lane_bits);
}

namespace internal {

// The spread lanes of a one-block filter of m bits are floor(m/16) or
// ceil(m/16) bits wide; the rate of lanes all m/16 bits wide (fractional)
// is the same to within a part in 16 of the rounding, far below anything
// the choices made from it depend on.
double OneBlockFpRate(uint64_t num_keys, uint64_t num_bits, int k) {
  return FpRate(num_keys, 1, k, static_cast<double>(num_bits) / kLanes);
}

int OneBlockBestK(uint64_t num_keys, uint64_t num_bits, double* rate) {
  return BestK(num_keys, 1, static_cast<double>(num_bits) / kLanes, rate);
}

// The textbook formula is the rate of k independent uniform bits; it
// underestimates the true rate of a small filter by a fraction of a percent
// (Bose et al. 2008), far below what choosing k depends on.
double StandardFpRate(uint64_t num_keys, uint64_t num_bits, int k) {
  const double unset =
      std::exp(static_cast<double>(k) * static_cast<double>(num_keys) *
               std::log1p(-1.0 / static_cast<double>(num_bits)));
  return std::pow(1.0 - unset, k);
}

int StandardBestK(uint64_t num_keys, uint64_t num_bits, double* rate) {
  int best_k = 1;
  double best = StandardFpRate(num_keys, num_bits, 1);
  for (int k = 2; k <= kMaxProbes; ++k) {
    const double r = StandardFpRate(num_keys, num_bits, k);
    if (r < best) {
      best = r;
      best_k = k;
    }
  }
  if (rate != nullptr) *rate = best;
  return best_k;
}

}  // namespace internal
}  // namespace blockbloom
