// Level-aware bits/key (blockbloom/level_allocation.h). The derivation is in
// docs/LEVELS.md; in short:
//
// The tree model (leveling, ratio T = level_size_multiplier, D populated
// levels below L0, numbered 1..D here; an engine's levels first..last map to
// them). Keys are counted relative to the last level:
//   level i (1 <= i <= D): n_i = T^-(D-i) keys, one file probed per Get;
//   L0: files of n_1 / kL0FilesPerL1 keys each, every one probed; on average
//       kL0FilesPresent of them are there.
// (RocksDB's defaults: 4 L0 files trigger a compaction into the first level,
// and max_bytes_for_level_base = 4 * write_buffer_size, so an L0 file is a
// quarter of that level; between compactions 0 to 4 files are present, 2 on
// average.) Levels above the first populated one (RocksDB's dynamic level
// sizes leave them empty) hold nothing and are not probed, so they are not
// in the model.
//
// A "group" j is a set of files built alike (one level, or the L0 files),
// holding n_j keys and probed P_j times per absent Get. With c_j bits/key
// and f(c) the false-positive rate of this layout at c bits/key, minimize
//   E[false reads] = sum_j P_j f(c_j)   subject to   sum_j n_j c_j = B sum_j
//   n_j.
// The Lagrangian separates: each group minimizes P_j f(c) + lambda n_j c, or
//   f(c) + lambda r_j c,  r_j = n_j / P_j (keys per probe),
// and lambda is found by bisection so that memory equals the budget. f is
// not convex everywhere (it is a minimum over k of convex curves: at each
// change of k it has a small concave kink), so the minimizer is taken on the
// lower convex hull of f sampled every 1/32 bit: for a slope s = lambda r_j
// it is the hull vertex where the hull's slope crosses -s. Memory as a
// function of lambda then moves in small steps, so after the bisection the
// budget's remainder (at most one step) goes to the last level, whose bits
// are the cheapest to adjust.
//
// f is EstimatedFpRate(ShapeForBitsPerKey(n, c), n) for a large n (2^20): the
// exact rate of the filter the builder makes at c bits/key, with its optimal
// k. Unlike the textbook exponential (which gives every level up a constant
// ln(T)/ln(2)^2 = 4.8 more bits at T = 10), the blocked layout's rate flattens
// at high c (block-load variance), so the extra bits per level shrink as the
// levels get smaller: the optimum does not pour memory into tiny levels that
// it cannot make much better.
#include "blockbloom/level_allocation.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "blockbloom/sizing.h"

namespace blockbloom {
namespace {

// See the model above.
constexpr double kL0FilesPerL1 = 4;
constexpr double kL0FilesPresent = 2;

// The false-positive rate is sampled every 1/32 bit/key: the plan is then
// within 1/64 bit of the continuous optimum, far below what a file's rounding
// to whole 64-byte blocks moves.
constexpr int kStepsPerBit = 32;
// A reference key count large enough that rounding to whole blocks is below
// 1e-4 of the size at 1 bit/key.
constexpr uint64_t kReferenceKeys = uint64_t{1} << 20;

double ExactFpRate(double bits_per_key) {
  absl::StatusOr<FilterShape> shape =
      ShapeForBitsPerKey(kReferenceKeys, bits_per_key,
                         /*compact_small_filters=*/false);
  if (!shape.ok()) return 1;
  absl::StatusOr<double> rate = EstimatedFpRate(*shape, kReferenceKeys);
  return rate.ok() ? *rate : 1;
}

struct Point {
  double bits;
  double fp_rate;
};

// The lower convex hull of f on [kMinBitsPerKey, kMaxBitsPerKey]: computed
// once per process (about 1,500 evaluations of the exact rate).
const std::vector<Point>& FpRateHull() {
  static const std::vector<Point>* const hull = [] {
    auto* h = new std::vector<Point>;
    const int steps = static_cast<int>(
        (LevelAllocator::kMaxBitsPerKey - LevelAllocator::kMinBitsPerKey) *
        kStepsPerBit);
    for (int i = 0; i <= steps; ++i) {
      const Point p{LevelAllocator::kMinBitsPerKey +
                        static_cast<double>(i) / kStepsPerBit,
                    0};
      Point q = p;
      q.fp_rate = ExactFpRate(p.bits);
      // Monotone chain: drop the last vertex while it lies on or above the
      // segment from the one before it to q.
      while (h->size() >= 2) {
        const Point& a = (*h)[h->size() - 2];
        const Point& b = h->back();
        const double cross = (b.bits - a.bits) * (q.fp_rate - a.fp_rate) -
                             (b.fp_rate - a.fp_rate) * (q.bits - a.bits);
        if (cross > 0) break;
        h->pop_back();
      }
      h->push_back(q);
    }
    return h;
  }();
  return *hull;
}

// argmin over the hull of f(c) + slope * c.
double MinimizingBits(double slope) {
  const std::vector<Point>& hull = FpRateHull();
  // The hull's segment slopes increase (towards 0); find the first vertex
  // whose outgoing segment is flatter than -slope.
  size_t lo = 0, hi = hull.size() - 1;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const double seg = (hull[mid + 1].fp_rate - hull[mid].fp_rate) /
                       (hull[mid + 1].bits - hull[mid].bits);
    if (seg >= -slope) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return hull[lo].bits;
}

struct Group {
  double keys;            // n_j, relative to the last level
  double keys_per_probe;  // r_j = n_j / P_j
};

// Groups of the model tree with `last` populated levels: element 0 is the L0
// files, element j the files WRITTEN at level j. A share `moved` of the keys
// of each level above the last arrived there by trivial moves from the level
// above (keeping the filters they were written with); the last level is
// rewritten by every compaction into it. So level i's keys were written at
// level j <= i with weight w_ij = moved^(i-j) (1 - moved), except j = 1 (the
// first level, which gets the rest: moved^(i-1)). A Get probes level i once,
// and the file it meets there was written at j with probability w_ij: group
// j has n_j = sum_i N_i w_ij keys and P_j = sum_i w_ij probes.
std::vector<Group> ModelTree(int last, double ratio, double moved) {
  std::vector<double> level_keys(last + 1), keys(last + 1), probes(last + 1);
  for (int i = 1; i <= last; ++i) level_keys[i] = std::pow(ratio, -(last - i));
  for (int i = 1; i <= last; ++i) {
    for (int j = 1; j <= i; ++j) {
      double w;
      if (i == last) {
        w = j == last ? 1 : 0;
      } else if (j == 1) {
        w = std::pow(moved, i - 1);
      } else {
        w = std::pow(moved, i - j) * (1 - moved);
      }
      keys[j] += level_keys[i] * w;
      probes[j] += w;
    }
  }
  std::vector<Group> groups(last + 1);
  for (int j = 1; j <= last; ++j) {
    groups[j] = {keys[j], probes[j] > 0 ? keys[j] / probes[j] : keys[j]};
  }
  const double l0_file = level_keys[1] / kL0FilesPerL1;
  groups[0] = {kL0FilesPresent * l0_file, l0_file};
  return groups;
}

std::vector<double> Allocate(const std::vector<Group>& groups, double budget) {
  double total_keys = 0;
  for (const Group& g : groups) total_keys += g.keys;
  const double target = budget * total_keys;
  auto bits_for = [&](double lambda) {
    std::vector<double> bits(groups.size());
    for (size_t j = 0; j < groups.size(); ++j) {
      bits[j] = MinimizingBits(lambda * groups[j].keys_per_probe);
    }
    return bits;
  };
  auto memory = [&](const std::vector<double>& bits) {
    double m = 0;
    for (size_t j = 0; j < groups.size(); ++j) m += groups[j].keys * bits[j];
    return m;
  };
  // Memory falls as lambda grows. At lambda = 1e3 every group is at the
  // minimum (f's slope there is about -0.1); at 1e-30 every group is at the
  // maximum, even L0 of a 12-level tree (r ~ 1e-12).
  double lo = std::log(1e-30), hi = std::log(1e3);
  for (int iter = 0; iter < 200; ++iter) {
    const double mid = 0.5 * (lo + hi);
    if (memory(bits_for(std::exp(mid))) > target) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  std::vector<double> bits = bits_for(std::exp(hi));  // memory <= target
  const size_t last = groups.size() - 1;
  bits[last] += (target - memory(bits)) / groups[last].keys;
  bits[last] = std::clamp(bits[last], LevelAllocator::kMinBitsPerKey,
                          LevelAllocator::kMaxBitsPerKey);
  return bits;
}

}  // namespace

struct LevelAllocator::Plans {
  // plans[D] for D = 1..kMaxLevels (plans[0] unused).
  std::vector<std::vector<double>> plans;
};

absl::StatusOr<LevelAllocator> LevelAllocator::Create(const Options& options) {
  if (!(options.bits_per_key >= kMinBitsPerKey && options.bits_per_key <= 40)) {
    return absl::InvalidArgumentError(
        absl::StrCat("level-aware bits_per_key must be in [1, 40], got ",
                     options.bits_per_key));
  }
  if (!(options.moved_fraction >= 0 && options.moved_fraction <= 0.95)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "moved_fraction must be in [0, 0.95], got ", options.moved_fraction));
  }
  if (!(options.level_size_multiplier >= 2 &&
        options.level_size_multiplier <= 1000)) {
    return absl::InvalidArgumentError(
        absl::StrCat("level_size_multiplier must be in [2, 1000], got ",
                     options.level_size_multiplier));
  }
  return LevelAllocator(options);
}

LevelAllocator::LevelAllocator(const Options& options) : options_(options) {
  auto plans = std::make_shared<Plans>();
  plans->plans.resize(kMaxLevels + 1);
  for (int d = 1; d <= kMaxLevels; ++d) {
    plans->plans[d] = Allocate(
        ModelTree(d, options.level_size_multiplier, options.moved_fraction),
        options.bits_per_key);
  }
  plans_ = std::move(plans);
}

std::vector<double> LevelAllocator::Plan(int levels) const {
  const int d = std::clamp(levels, 1, kMaxLevels);
  std::vector<double> plan = plans_->plans[d];
  if (levels > kMaxLevels) {
    // Deeper trees: the bottom kMaxLevels levels as planned, the levels
    // above like the top of the plan.
    std::vector<double> deep(levels + 1, plan[1]);
    deep[0] = plan[0];
    std::copy(plan.begin() + 1, plan.end(),
              deep.begin() + (levels - kMaxLevels) + 1);
    plan = std::move(deep);
  }
  return plan;
}

double LevelAllocator::BitsPerKey(const LevelHint& hint) const {
  if (hint.compaction != LevelHint::Compaction::kLeveled || hint.level < 0) {
    return options_.bits_per_key;
  }
  // The populated levels: from the first (at most this file's level) to the
  // last (at least this level, and below it if this file is not the last
  // sorted run for its keys).
  int first = hint.first_level >= 1 ? hint.first_level : 1;
  if (hint.level >= 1) first = std::min(first, hint.level);
  int last = std::max(hint.last_level, first);
  if (hint.level >= 1) {
    last = std::max(last, hint.level + (hint.is_bottommost ? 0 : 1));
  }
  const int levels = last - first + 1;
  const std::vector<double> plan = Plan(levels);
  if (hint.level == 0) return plan[0];
  // A bottommost file is the last probe of its keys, whatever its level.
  return hint.is_bottommost ? plan[levels] : plan[hint.level - first + 1];
}

double LevelAllocator::ExpectedFalseReads(
    int levels, const std::vector<double>& bits) const {
  const std::vector<Group> groups =
      ModelTree(std::clamp(levels, 1, kMaxLevels),
                options_.level_size_multiplier, options_.moved_fraction);
  double reads = 0;
  for (size_t j = 0; j < groups.size() && j < bits.size(); ++j) {
    const double probes = groups[j].keys / groups[j].keys_per_probe;
    reads += probes * ExactFpRate(bits[j]);
  }
  return reads;
}

std::vector<double> LevelAllocator::PlanKeys(int levels) const {
  std::vector<double> keys;
  for (const Group& g :
       ModelTree(std::clamp(levels, 1, kMaxLevels),
                 options_.level_size_multiplier, options_.moved_fraction)) {
    keys.push_back(g.keys);
  }
  return keys;
}

}  // namespace blockbloom
