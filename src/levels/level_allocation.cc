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
// not convex everywhere, so the minimizer is taken on the lower convex hull
// of f sampled every 1/32 bit (src/levels/rate_hull.h). Memory as a function
// of lambda then moves in small steps, so after the bisection the budget's
// remainder (at most one step) goes to the group with the most keys (the last
// level), whose bits are the cheapest to adjust.
//
// With several kinds (Options::kinds), each group takes, at the common
// lambda, the kind whose minimum of P_j (f_kind(c) + probe_cost_kind) +
// lambda n_j c is lowest. Memory is still non-increasing in lambda (each
// group's minimum over kinds and bits is a concave function of lambda whose
// slope is its memory), so the same bisection holds.
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
#include <functional>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "blockbloom/sizing.h"
#include "src/format/registry.h"
#include "src/levels/rate_hull.h"

namespace blockbloom {
namespace {

using internal::RateHull;

// See the model above.
constexpr double kL0FilesPerL1 = 4;
constexpr double kL0FilesPresent = 2;

// Every kind's curve is taken at this many keys: for the blocked kind,
// enough that rounding to whole blocks is below 1e-4 of the size at 1
// bit/key.
constexpr uint64_t kReferenceKeys = internal::kPlanningKeys;

// The blocked kind's hull: computed once per process (about 1,500
// evaluations of the exact rate).
std::shared_ptr<const RateHull> BlockedHull() {
  static const std::shared_ptr<const RateHull>* const hull =
      new std::shared_ptr<const RateHull>(
          std::make_shared<const RateHull>(BlockedFpRate));
  return *hull;
}

using Group = LevelAllocator::Group;
using Choice = LevelAllocator::Choice;

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
    groups[j] = {.level = j, .keys = keys[j], .probes = probes[j]};
  }
  const double l0_file = level_keys[1] / kL0FilesPerL1;
  groups[0] = {
      .level = 0, .keys = kL0FilesPresent * l0_file, .probes = kL0FilesPresent};
  return groups;
}

}  // namespace

double BlockedFpRate(double bits_per_key) {
  absl::StatusOr<FilterShape> shape =
      ShapeForBitsPerKey(kReferenceKeys, bits_per_key,
                         /*compact_small_filters=*/false);
  if (!shape.ok()) return 1;
  absl::StatusOr<double> rate = EstimatedFpRate(*shape, kReferenceKeys);
  return rate.ok() ? *rate : 1;
}

namespace {

// A kind's rate curve from its plug-in (src/core/kind.h), at the size the
// blocked kind's is taken at; empty if it has none, or if FilterBuilder
// does not build it (a plan may only choose what a policy can build).
std::function<double(double)> CurveOf(FilterKind kind) {
  const internal::KindPlugin* plugin = internal::FindKind(kind);
  if (plugin == nullptr || plugin->fp_rate_at == nullptr ||
      plugin->build == nullptr) {
    return {};
  }
  return [rate = plugin->fp_rate_at](double bits_per_key) {
    if (!(bits_per_key > 0)) return 1.0;
    return std::min(1.0, rate(kReferenceKeys, bits_per_key));
  };
}

}  // namespace

struct LevelAllocator::Plans {
  struct Kind {
    KindCurve curve;  // fp_rate set
    std::shared_ptr<const RateHull> hull;
  };
  std::vector<Kind> kinds;  // at least one with first_level 0
  // plans[D] for D = 1..kMaxLevels (plans[0] unused).
  std::vector<std::vector<Choice>> plans;
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
  bool any_from_l0 = options.kinds.empty();
  for (size_t i = 0; i < options.kinds.size(); ++i) {
    const KindCurve& k = options.kinds[i];
    const int id = static_cast<int>(k.kind);
    for (size_t j = 0; j < i; ++j) {
      if (options.kinds[j].kind == k.kind) {
        return absl::InvalidArgumentError(absl::StrCat(
            "LevelAllocator::Options::kinds lists kind ", id, " twice"));
      }
    }
    if (!(k.probe_cost >= 0 && std::isfinite(k.probe_cost))) {
      return absl::InvalidArgumentError(
          absl::StrCat("the probe cost of kind ", id,
                       " must be a finite number >= 0, got ", k.probe_cost));
    }
    if (k.first_level < 0) {
      return absl::InvalidArgumentError(absl::StrCat("the first level of kind ",
                                                     id, " must be >= 0, got ",
                                                     k.first_level));
    }
    if (!k.fp_rate && k.kind != FilterKind::kBlocked && !CurveOf(k.kind)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "kind ", id,
          " needs its false-positive rate curve (fp_rate): its plug-in "
          "has none"));
    }
    any_from_l0 = any_from_l0 || k.first_level == 0;
  }
  if (!any_from_l0) {
    return absl::InvalidArgumentError(
        "one of LevelAllocator::Options::kinds must have first_level 0: L0 "
        "files need a kind too");
  }
  return LevelAllocator(options);
}

LevelAllocator::LevelAllocator(const Options& options) : options_(options) {
  auto plans = std::make_shared<Plans>();
  std::vector<KindCurve> kinds = options.kinds;
  if (kinds.empty()) kinds.push_back({});
  for (KindCurve& k : kinds) {
    std::shared_ptr<const RateHull> hull;
    if (!k.fp_rate && k.kind == FilterKind::kBlocked) {
      k.fp_rate = BlockedFpRate;
      hull = BlockedHull();
    } else {
      if (!k.fp_rate) k.fp_rate = CurveOf(k.kind);
      hull = std::make_shared<const RateHull>(k.fp_rate);
    }
    plans->kinds.push_back({std::move(k), std::move(hull)});
  }
  plans_ = std::move(plans);
  std::vector<std::vector<Choice>> by_depth(kMaxLevels + 1);
  for (int d = 1; d <= kMaxLevels; ++d) {
    by_depth[d] = Optimize(
        ModelTree(d, options.level_size_multiplier, options.moved_fraction),
        options.bits_per_key);
  }
  // Plans is shared and immutable once built.
  auto done = std::make_shared<Plans>(*plans_);
  done->plans = std::move(by_depth);
  plans_ = std::move(done);
}

std::vector<Choice> LevelAllocator::Optimize(const std::vector<Group>& groups,
                                             double budget) const {
  std::vector<Choice> choices(groups.size());
  if (groups.empty()) return choices;
  const std::vector<Plans::Kind>& kinds = plans_->kinds;
  // Keys and probes as shares of their totals: lambda's range then does not
  // depend on their units.
  double total_keys = 0, total_probes = 0;
  for (const Group& g : groups) {
    total_keys += std::max(g.keys, 0.0);
    total_probes += std::max(g.probes, 0.0);
  }
  const auto first_kind_for = [&](int level) -> const Plans::Kind& {
    for (const Plans::Kind& k : kinds) {
      if (k.curve.first_level <= level) return k;
    }
    return kinds.front();  // not reached: one kind starts at level 0
  };
  const auto at_budget = [&](const Group& g) {
    const Plans::Kind& k = first_kind_for(g.level);
    const double bits = std::clamp(budget, kMinBitsPerKey, kMaxBitsPerKey);
    return Choice{k.curve.kind, bits, k.curve.fp_rate(bits)};
  };
  if (total_keys <= 0) {
    for (size_t j = 0; j < groups.size(); ++j)
      choices[j] = at_budget(groups[j]);
    return choices;
  }
  if (total_probes <= 0) total_probes = 1;
  const auto choose = [&](double lambda, std::vector<Choice>* out) {
    for (size_t j = 0; j < groups.size(); ++j) {
      const Group& g = groups[j];
      if (g.keys <= 0) {
        (*out)[j] = at_budget(g);
        continue;
      }
      const double n = g.keys / total_keys;
      const double p = std::max(g.probes, 0.0) / total_probes;
      const double slope =
          p > 0 ? lambda * n / p : std::numeric_limits<double>::infinity();
      double best = std::numeric_limits<double>::infinity();
      for (const Plans::Kind& k : kinds) {
        if (k.curve.first_level > g.level) continue;
        const RateHull::Point& v = k.hull->Minimizing(slope);
        const double value =
            p * (v.fp_rate + k.curve.probe_cost) + lambda * n * v.bits;
        if (value < best) {
          best = value;
          (*out)[j] = {k.curve.kind, v.bits, v.fp_rate};
        }
      }
    }
  };
  const auto memory = [&](const std::vector<Choice>& c) {
    double m = 0;
    for (size_t j = 0; j < groups.size(); ++j) {
      if (groups[j].keys > 0) {
        m += groups[j].keys * (c[j].bits_per_key + groups[j].overhead);
      }
    }
    return m;
  };
  const double target = budget * total_keys;
  // Memory falls as lambda grows. At 1e40 every group is at the minimum (a
  // group's slope is lambda times its share of the keys over its share of
  // the probes, and the rate curves' slopes are above -10); at 1e-40 every
  // group is at the maximum.
  double lo = std::log(1e-40), hi = std::log(1e40);
  for (int iter = 0; iter < 200; ++iter) {
    const double mid = 0.5 * (lo + hi);
    choose(std::exp(mid), &choices);
    if (memory(choices) > target) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  choose(std::exp(hi), &choices);  // memory <= target if it can be
  // The remainder goes to the group with the most keys.
  size_t largest = 0;
  for (size_t j = 0; j < groups.size(); ++j) {
    if (groups[j].keys >= groups[largest].keys) largest = j;
  }
  Choice& c = choices[largest];
  c.bits_per_key = std::clamp(
      c.bits_per_key + (target - memory(choices)) / groups[largest].keys,
      kMinBitsPerKey, kMaxBitsPerKey);
  c.fp_rate = FpRate(c.kind, c.bits_per_key);
  return choices;
}

double LevelAllocator::FpRate(FilterKind kind, double bits_per_key) const {
  for (const Plans::Kind& k : plans_->kinds) {
    if (k.curve.kind == kind) return k.curve.fp_rate(bits_per_key);
  }
  return kind == FilterKind::kBlocked ? BlockedFpRate(bits_per_key) : 1;
}

double LevelAllocator::ExpectedCost(const std::vector<Group>& groups,
                                    const std::vector<Choice>& choices) const {
  double cost = 0;
  for (size_t j = 0; j < groups.size() && j < choices.size(); ++j) {
    double probe_cost = 0;
    for (const Plans::Kind& k : plans_->kinds) {
      if (k.curve.kind == choices[j].kind) probe_cost = k.curve.probe_cost;
    }
    cost += groups[j].probes *
            (FpRate(choices[j].kind, choices[j].bits_per_key) + probe_cost);
  }
  return cost;
}

std::vector<double> LevelAllocator::Plan(int levels) const {
  const int d = std::clamp(levels, 1, kMaxLevels);
  std::vector<double> plan;
  for (const Choice& c : plans_->plans[d]) plan.push_back(c.bits_per_key);
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

LevelAllocator::Choice LevelAllocator::Choose(const LevelHint& hint) const {
  if (hint.compaction != LevelHint::Compaction::kLeveled || hint.level < 0) {
    const FilterKind kind = plans_->kinds.front().curve.first_level == 0
                                ? plans_->kinds.front().curve.kind
                                : FilterKind::kBlocked;
    return {kind, options_.bits_per_key, FpRate(kind, options_.bits_per_key)};
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
  const std::vector<Choice>& plan =
      plans_->plans[std::clamp(levels, 1, kMaxLevels)];
  // Deeper trees than kMaxLevels: their top levels take the plan's first.
  const auto at = [&](int element) -> const Choice& {
    const int shift = std::max(levels - kMaxLevels, 0);
    return plan[element == 0 ? 0 : std::max(element - shift, 1)];
  };
  if (hint.level == 0) return at(0);
  // A bottommost file is the last probe of its keys, whatever its level.
  return hint.is_bottommost ? at(levels) : at(hint.level - first + 1);
}

double LevelAllocator::BitsPerKey(const LevelHint& hint) const {
  return Choose(hint).bits_per_key;
}

double LevelAllocator::ExpectedFalseReads(
    int levels, const std::vector<double>& bits) const {
  const std::vector<Group> groups =
      ModelTree(std::clamp(levels, 1, kMaxLevels),
                options_.level_size_multiplier, options_.moved_fraction);
  double reads = 0;
  for (size_t j = 0; j < groups.size() && j < bits.size(); ++j) {
    reads += groups[j].probes * BlockedFpRate(bits[j]);
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

std::vector<LevelAllocator::Group> LevelAllocator::ModelGroups(
    int levels) const {
  return ModelTree(std::clamp(levels, 1, kMaxLevels),
                   options_.level_size_multiplier, options_.moved_fraction);
}

}  // namespace blockbloom
