// Level-aware filter memory for LSM trees ("Monkey": Dayan, Athanassoulis,
// Idreos, SIGMOD 2017): ONE average bits/key budget, spent unevenly across
// the levels so that an absent-key lookup reads as few table files in vain as
// possible.
//
// An absent-key Get probes one filter per sorted run it may be in: every L0
// file, then one file per deeper level. Each false positive costs a read, so
// the expected wasted reads per absent Get are the SUM of those filters'
// false-positive rates. The deep levels hold almost all the keys (level i+1
// is `level_size_multiplier` times level i), so a bit per key taken from the
// last level and given to the small upper levels lowers the sum at the same
// total memory. The optimum (Lagrange) gives each filter the bits/key c where
//   f'(c) = -lambda * (keys in the filter) / (probes of the filter per Get),
// f being this layout's EXACT false-positive rate (blockbloom/sizing.h), not
// the textbook exponential; lambda is set so that the average is the budget.
// docs/LEVELS.md has the derivation and the tree model; the numbers it gives
// for the default 10 bits/key and ratio 10 are in LevelAllocator's tests.
//
// The kind per level: Options::kinds lists the filter kinds a plan may use,
// each with its false-positive rate curve and probe cost (KindCurve); each
// group gets the kind and bits that minimize its false reads plus probe cost
// at the common lambda: the blocked kind (BlockedFpRate) by default; with
// the ribbon (RibbonFpRate) too, FilterPolicy::LevelOptions::ribbon_saves
// kFalseReads (docs/LEVELS.md, "The kind per level").
//
//   auto alloc = blockbloom::LevelAllocator::Create({.bits_per_key = 10});
//   blockbloom::LevelHint hint;
//   hint.level = 3;  hint.first_level = 1;  hint.last_level = 4;
//   double bits = alloc->BitsPerKey(hint);  // 14.72 (Plan(4)[3])
#ifndef BLOCKBLOOM_LEVEL_ALLOCATION_H_
#define BLOCKBLOOM_LEVEL_ALLOCATION_H_

#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "blockbloom/filter.h"

namespace blockbloom {

// A filter kind that a plan may give a group of tables, with what it costs.
struct KindCurve {
  FilterKind kind = FilterKind::kBlocked;
  // The kind's false-positive rate with c bits per key (all of its bits, as
  // built), for c in [LevelAllocator::kMinBitsPerKey, kMaxBitsPerKey];
  // non-increasing. Empty: the kind's own curve (BlockedFpRate for the
  // blocked kind, RibbonFpRate for the ribbon; InvalidArgument for a kind
  // that has none).
  // Sampled every 1/32 bit when the allocator is created.
  std::function<double(double bits_per_key)> fp_rate;
  // What one probe costs beyond a blocked filter's, in false-positive reads:
  // a probe 40 ns slower where a wasted read costs 20 us is 0.002. Charged
  // for every probe of the group (>= 0).
  double probe_cost = 0;
  // The shallowest level it may be used at: 1 keeps flushes (L0) on the
  // kinds that build fastest, as RocksDB's bloom_before_level does.
  int first_level = 0;
};

// The exact false-positive rate of blockbloom's blocked filter with
// `bits_per_key` bits per key (EstimatedFpRate of the shape the builder makes
// for 2^20 keys; 1 for bits it cannot build).
double BlockedFpRate(double bits_per_key);

// The estimated false-positive rate of blockbloom's ribbon kind
// (its plug-in's curve) with `bits_per_key` bits per key, all of its bytes
// counted, for 2^20 keys: about 2^-(c - 0.4) (10 bits/key: ~0.1%, against
// the blocked kind's ~0.96%). The curve of the ribbon's KindCurve.
double RibbonFpRate(double bits_per_key);

// What an engine knows about the table file a filter is built for.
struct LevelHint {
  // The level the file is written to: 0 for a flush (L0), -1 if unknown
  // (e.g. a file written outside the tree and ingested later).
  int level = -1;
  // The deepest level holding data, if the engine knows or has seen it; -1
  // if not. A file that is not bottommost has at least one level below it,
  // so level + 1 is used when this is smaller.
  int last_level = -1;
  // The shallowest level below L0 holding data (the level L0 is compacted
  // into), if known; -1 if not, taken as 1. RocksDB with
  // level_compaction_dynamic_level_bytes leaves the levels above it empty,
  // and L0 files are then sized like IT, not like L1.
  int first_level = -1;
  // The file goes into the last sorted run for its key range: nothing below
  // it is probed by a Get for its keys (RocksDB's is_bottommost).
  bool is_bottommost = false;
  enum class Compaction {
    // Leveling: one sorted run per level >= 1, each level_size_multiplier
    // times the one above; L0 files overlap and each is probed.
    kLeveled,
    // Universal (tiered) and FIFO: every file or run is probed, and the level
    // number does not tell its size; see LevelAllocator::BitsPerKey.
    kUniversal,
    kFifo,
  };
  Compaction compaction = Compaction::kLeveled;
};

class LevelAllocator {
 public:
  struct Options {
    // The budget: average bits of filter per key over the whole tree, in
    // [1, 40].
    double bits_per_key = 10;
    // Size ratio of adjacent levels (RocksDB's max_bytes_for_level_multiplier,
    // default 10), in [2, 1000].
    double level_size_multiplier = 10;
    // The share, in [0, 0.95], of each level's keys (all but the last level)
    // that arrived by TRIVIAL MOVES: RocksDB moves a table down without
    // rewriting it when nothing below overlaps it, and the table keeps the
    // filter it was written with. A table written at a level then also
    // serves the levels below it, so it gets fewer bits than its level alone
    // would. 0: every table is rewritten on its way down (the textbook
    // tree). RocksDB 7.8 with its default compaction priority moved about
    // two thirds of the tables of the levels between the first and the last
    // in this project's trees (docs/LEVELS.md).
    double moved_fraction = 0.6;
    // The kinds a plan chooses from, per group; empty: the blocked kind
    // alone. InvalidArgument if a kind is listed twice, a probe cost is
    // negative or not finite, or first_level is negative.
    std::vector<KindCurve> kinds;
  };

  // InvalidArgument if an option is out of range.
  static absl::StatusOr<LevelAllocator> Create(const Options& options);

  const Options& options() const { return options_; }

  // The bits/key for a file described by `hint`, in [kMinBitsPerKey,
  // kMaxBitsPerKey]. Leveled files with a known level get the optimum for the
  // tree model (docs/LEVELS.md); files of unknown level, and all files under
  // universal and FIFO compaction, get the budget itself (under FIFO every
  // file holds about as many keys and is probed once, so equal bits ARE the
  // optimum; under universal compaction a run's size is not given by its
  // level, and equal bits never exceed the budget).
  double BitsPerKey(const LevelHint& hint) const;

  // Forward declared for Choose; defined with Optimize below.
  struct Choice;
  // The kind and bits/key for `hint` (BitsPerKey is its bits).
  Choice Choose(const LevelHint& hint) const;

  // The plan for a leveled tree with `levels` (>= 1) populated levels below
  // L0: element 0 is the bits/key of each L0 file, element i that of the
  // i-th populated level (the last is element `levels`). Its keys-weighted
  // average over the model tree is the budget. A tree whose populated levels
  // are first..last uses Plan(last - first + 1), level l at element
  // l - first + 1.
  std::vector<double> Plan(int levels) const;

  // The keys, relative to the last level's, of the files each element of
  // Plan(levels) applies to in the model tree (for checking the budget:
  // sum(PlanKeys[j] * Plan[j]) / sum(PlanKeys) is bits_per_key).
  std::vector<double> PlanKeys(int levels) const;

  // The expected number of false-positive file reads per absent-key Get in
  // the model tree with `levels` populated levels below L0, for `bits` per
  // level as returned by Plan (or all equal to the budget, for comparison).
  double ExpectedFalseReads(int levels, const std::vector<double>& bits) const;

  // The general optimizer, for groups of tables that an engine observed
  // instead of the model tree. A group is the tables written at one level.
  struct Group {
    int level = 0;      // where its tables are written (KindCurve::first_level)
    double keys = 0;    // keys in its tables (any unit, the same for all)
    double probes = 0;  // probes of its filters per absent-key Get (any
                        // unit, the same for all; only ratios matter)
    double overhead = 0;  // bits/key its filters take beyond their planned
                          // bits (footer, rounding): counted in the budget
  };
  struct Choice {
    FilterKind kind = FilterKind::kBlocked;
    double bits_per_key = 0;
    double fp_rate = 1;  // the kind's rate at those bits
  };
  // The kind and bits/key of each group that minimize
  //   sum_j probes_j * (fp_kind(c_j) + probe_cost_kind)
  // subject to sum_j keys_j * (c_j + overhead_j) <= budget * sum_j keys_j.
  // The budget's remainder goes to the group with the most keys; a budget
  // below what the overheads and kMinBitsPerKey take is overspent by as
  // little as possible (every group at kMinBitsPerKey). Groups without keys
  // get the budget (they take no memory in the sum). Empty for no groups.
  std::vector<Choice> Optimize(const std::vector<Group>& groups,
                               double budget) const;
  // The groups of the model tree with `levels` populated levels (element 0
  // L0, element i the tables written at the i-th level): what Plan(levels)
  // optimizes, and the prior of an engine's learned plan.
  std::vector<Group> ModelGroups(int levels) const;
  // sum_j probes_j * (fp_kind(c_j) + probe_cost_kind) for given choices.
  double ExpectedCost(const std::vector<Group>& groups,
                      const std::vector<Choice>& choices) const;
  // The false-positive rate of `kind` (one of options().kinds, or the
  // blocked kind) at `bits_per_key`.
  double FpRate(FilterKind kind, double bits_per_key) const;

  static constexpr double kMinBitsPerKey = 1;
  static constexpr double kMaxBitsPerKey = 48;
  // Plans are computed for trees of up to this many populated levels; deeper
  // trees use the plan of this depth for their bottom levels (the levels
  // above hold less than 1e-8 of the keys at ratio 10).
  static constexpr int kMaxLevels = 12;

 private:
  struct Plans;
  explicit LevelAllocator(const Options& options);
  Options options_;
  std::shared_ptr<const Plans> plans_;  // shared: allocators copy cheaply
};

}  // namespace blockbloom

#endif  // BLOCKBLOOM_LEVEL_ALLOCATION_H_
