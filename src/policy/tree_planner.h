// The plan of a policy for an LSM tree's tables, engine-neutral: what an
// engine adapter asks for each new table (the level hint, the kind and
// bits/key, the hot ranges' context) and the report of its plans. It learns
// the populated levels of each column family from the tables built, and,
// with LevelOptions::level_learned, keeps one LearnedPlan per column family
// updated from the readers' counters (src/levels/policy_state.h). The
// RocksDB adapter (src/rocksdb/rocksdb.cc) translates RocksDB's
// FilterBuildingContext and calls it.
#ifndef BLOCKBLOOM_SRC_POLICY_TREE_PLANNER_H_
#define BLOCKBLOOM_SRC_POLICY_TREE_PLANNER_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "blockbloom/filter_policy.h"
#include "blockbloom/level_allocation.h"
#include "blockbloom/level_report.h"
#include "src/levels/learned_plan.h"
#include "src/levels/policy_state.h"
#include "src/levels/range_heat.h"

namespace blockbloom::internal {

class TreePlanner {
 public:
  // `policy` outlives the planner; `state` is what its readers update.
  TreePlanner(const FilterPolicy& policy, std::shared_ptr<PolicyState> state);

  // `hint` (level, bottommost, compaction, as the engine gives them) with
  // the populated levels learned so far for `column_family`, which it
  // updates: a table at level L >= 1 means data reaches L (the first
  // populated level is at most L), and below L if the table is not
  // bottommost. Before anything is learned (a new or reopened DB), a table
  // at L assumes that it and the level below it are all there is: the
  // fewest bits consistent with what is known, so memory stays within the
  // budget. `num_levels` is the tree's (1: every table an L0 file, each
  // probed, all alike: level unknown).
  LevelHint HintFor(LevelHint hint, int num_levels,
                    const std::string& column_family) const;

  // The kind and bits/key of a new table: the learned plan's (updated first
  // from the counters; `log` gets one line per change of the plan), the
  // model's, or the budget.
  LevelAllocator::Choice ChoiceFor(
      const LevelHint& hint, const std::string& column_family,
      absl::FunctionRef<void(const std::string&)> log) const;

  // What a new table's builder needs for hot ranges
  // (LevelOptions::hot_ranges); empty (heat null) when it gets none.
  HotRangeContext HotRangesFor(const LevelHint& hint,
                               const LevelAllocator::Choice& choice,
                               const std::string& column_family) const;

  // The report rows (blockbloom/level_report.h).
  std::vector<LevelReport> Report() const;

 private:
  struct Depth {
    int first = 0;  // shallowest populated level below L0 seen; 0: none yet
    int last = 0;   // deepest level data is known to reach; 0: none yet
  };

  std::vector<LevelObservation> ObserveFor(
      const std::string& column_family) const;
  bool FlushesKept(const LevelHint& hint,
                   const std::vector<LevelObservation>& observed) const;

  const FilterPolicy& policy_;
  const std::shared_ptr<PolicyState> state_;
  std::unique_ptr<const LevelAllocator> allocator_;  // when level_aware
  mutable std::mutex mutex_;
  mutable std::map<std::string, Depth> depth_;  // by column family name
  // By column family name, when level_learned.
  mutable std::map<std::string, std::unique_ptr<LearnedPlan>> plans_;
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_POLICY_TREE_PLANNER_H_
