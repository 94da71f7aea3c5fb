// The learned plan of one column family: the kind and bits/key of the tables
// written at each level, from what the adapter's readers observed
// (src/levels/probe_counters.h) instead of the tree model alone
// (docs/LEVELS.md, "The learned plan").
//
// Each level of creation l is one group of LevelAllocator::Optimize, and the
// bottommost tables (written at any level >= 1 with nothing below them:
// RocksDB's is_bottommost) are one more, kBottommost, which stands for the
// model's last level, as in the model plan (LevelAllocator::Choose):
//   keys_l   = the model tree's keys written at l (its groups for the
//              populated levels first..last, as in the model plan): the
//              live keys of a growing tree are transient, and a plan on
//              them overspent (the keys observed are in the report);
//              except L0's when its tables are kept (most live keys are
//              in flushes' tables, moved down whole) or in a backlog (more
//              live tables than Options::l0_backlog_tables): then its live
//              share, and in a backlog for L0's own bits only;
//   probes_l = prior_l + smoothed_l: the model's probes of l (the prior,
//              worth Options::prior_probes probes in all) plus the probes
//              of those filters observed since the plan began, forgotten
//              with a half-life of Options::half_life_probes probes so
//              that the plan follows a changing workload; both scaled by
//              (E + prior_probes) / (E_l + prior_probes), E the tree's
//              probes and E_l those made while l had live tables (same
//              forgetting): a level new to the tree was not there, not
//              seldom probed.
// Before anything is observed the plan IS the model's (the prior alone, over
// the model's keys); the more probes are seen, the less the prior weighs.
// The memory budget holds over the model's keys: sum_l keys_l * bits_l =
// budget * sum_l keys_l (Optimize), and the budget given to Optimize is
// corrected by what the live filters really take (Options::feedback_keys):
// tables built under earlier plans, when the tree was shaped otherwise,
// and each block's footer are then paid for by the next tables. Every table's
// filter records its own shape, so a plan change, a reopen or a lost plan never
// makes a table unreadable (no false negatives): the plan only decides NEW
// tables' bits.
#ifndef BLOCKBLOOM_SRC_LEVELS_LEARNED_PLAN_H_
#define BLOCKBLOOM_SRC_LEVELS_LEARNED_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "blockbloom/level_allocation.h"

namespace blockbloom::internal {

// What was observed of the filters written at one level, cumulative since
// the plan began (probes, positives) or as of now (keys, bytes, tables).
struct LevelObservation {
  uint64_t probes = 0;
  uint64_t positives = 0;
  uint64_t keys = 0;
  uint64_t bytes = 0;
  uint64_t tables = 0;
};

class LearnedPlan {
 public:
  // The plan's groups: levels of creation 0 .. kBottommost - 1 (deeper ones
  // are planned as the deepest), then the bottommost tables.
  static constexpr int kLevels = 15;
  // The group of the tables written with nothing below them for their keys
  // (is_bottommost), at whatever level >= 1: they hold the tree's keys at
  // rest, wherever compactions move them, and are probed last. Grouped by
  // level of creation, they were planned on an upper level's share of the
  // keys: with RocksDB's default level sizes (a partly full last level),
  // bottommost tables written at L2-L4 and moved down whole held most of
  // bench/rocksdb/level_tree_bench's keys, and the tables written at L3 got
  // about twice the budget's bits/key (the tree well over its budget).
  static constexpr int kBottommost = kLevels - 1;
  // The group of a table written at `level` (< 0: none, -1).
  static int GroupOf(int level, bool bottommost) {
    if (level < 0) return -1;
    if (level >= 1 && bottommost) return kBottommost;
    return level < kBottommost ? level : kBottommost - 1;
  }
  struct Options {
    double budget = 10;  // bits/key, the average over the live keys
    // What the model prior weighs, in probes.
    double prior_probes = 4096;
    // Observations this many probes old count half.
    double half_life_probes = 200'000;
    // An update with fewer new probes than this keeps the plan.
    uint64_t min_new_probes = 1000;
    // When tables built at L0 (flushes) hold more than this share of the
    // live keys, they are kept, not rewritten by compactions (ascending
    // keys: every table is moved down whole), and L0 may take every kind
    // (a ribbon), not only the kinds of KindCurve::first_level 0.
    double l0_kept_share = 0.5;
    // When more tables built at L0 than this are live (twice RocksDB's
    // default level0_file_num_compaction_trigger), and they hold more than
    // the model's share of the live keys, compactions are behind (a write
    // burst: an L0 backlog), and L0's bits are planned on its live share of
    // the keys; the other levels keep the plan's bits. L0's observed probes
    // are every L0 file's (each is probed by every Get): planned over the
    // model's keys of two files, level_tree_bench's backlog (dozens of L0
    // files) got several times the budget at L0 and overspent in all; on
    // its live share half that at L0, for a few more false reads (still far
    // fewer than RocksDB Ribbon's; docs/BENCHMARKS.md, "L0 backlogs").
    uint64_t l0_backlog_tables = 8;
    // A change of bits/key smaller than this is not a change (logged).
    double min_change = 0.5;
    // Feedback on the memory actually spent: once the live filters hold at
    // least this many keys, the budget given to the optimizer is scaled so
    // that their real average (footers, rounding and tables built under
    // earlier plans included) comes back to `budget`. 0 (the default): no
    // feedback. Off because a growing tree's live average is transient: L0
    // and the upper levels at many bits/key hold a large share of the keys
    // while the tree grows, so the feedback cut the last level's bits
    // (6.2 bits/key, 7.4 on average against a budget of 10, in
    // bench/rocksdb/level_tree_bench).
    uint64_t feedback_keys = 0;
  };
  struct Entry {
    LevelAllocator::Choice choice;
    double probes = 0;    // smoothed observed probes (without the prior)
    double exposure = 0;  // smoothed probes of the tree while it was there
    double prior = 0;     // the prior's probes
    uint64_t keys = 0;    // live keys written here
    uint64_t bytes = 0;   // live filter bytes written here
    uint64_t tables = 0;
    uint64_t total_probes = 0;  // since the plan began
    uint64_t total_positives = 0;
  };

  LearnedPlan(const LevelAllocator& allocator, const Options& options);

  // Takes the observations by group (GroupOf; kLevels elements,
  // cumulative probes and positives) and the populated levels known
  // (first..last, >= 1; the model prior's tree). Returns true if the plan
  // changed by more than min_change (or the kind) at some level.
  bool Update(const std::vector<LevelObservation>& observed, int first,
              int last);

  // The choice for a table of `group` (GroupOf; clamped to 0..kBottommost).
  LevelAllocator::Choice ChoiceFor(int group) const;
  const std::vector<Entry>& entries() const { return entries_; }
  int updates() const { return updates_; }
  int first() const { return first_; }
  // What the optimizer was last given for `budget` (the feedback's scale).
  double effective_budget() const { return options_.budget * scale_; }
  int last() const { return last_; }
  // At the last update, L0 was in a backlog (Options::l0_backlog_tables):
  // planned on its live share.
  bool l0_backlog() const { return l0_backlog_; }

  // One line per group with tables or a plan ("L<level>", "bottommost"):
  // kind, bits/key, keys, observed probes, positive rate (and backlog=1 on
  // L0's line in an L0 backlog); for logs and the report.
  std::string Describe() const;

 private:
  // The model's hint for a table of `group` in the tree first_..last_.
  LevelHint HintFor(int group) const;

  LevelAllocator allocator_;
  Options options_;
  std::vector<Entry> entries_;
  std::vector<uint64_t> seen_probes_;  // cumulative, at the last update
  std::vector<uint64_t> seen_positives_;
  int first_ = 1, last_ = 1;
  int updates_ = 0;
  uint64_t planned_keys_ = 0;  // live keys at the last update
  double scale_ = 1;
  double exposure_ = 0;  // smoothed probes of the tree
  bool l0_backlog_ = false;
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_LEVELS_LEARNED_PLAN_H_
