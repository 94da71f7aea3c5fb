// The plan of a policy for an LSM tree's tables (tree_planner.h).
#include "src/policy/tree_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/policy/policy_access.h"

namespace blockbloom::internal {

TreePlanner::TreePlanner(const FilterPolicy& policy,
                         std::shared_ptr<PolicyState> state)
    : policy_(policy), state_(std::move(state)) {
  // The policy's own plan: the same budget and kinds.
  if (const LevelAllocator* a = PolicyAccess::Allocator(policy_)) {
    allocator_ = std::make_unique<LevelAllocator>(*a);
  }
}

LevelHint TreePlanner::HintFor(LevelHint hint, int num_levels,
                               const std::string& column_family) const {
  if (num_levels == 1) hint.level = -1;
  if (!policy_.options().levels.level_aware ||
      hint.compaction != LevelHint::Compaction::kLeveled || hint.level < 0) {
    return hint;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  Depth& depth = depth_[column_family];
  hint.first_level = depth.first > 0 ? depth.first : -1;
  hint.last_level = depth.last > 0 ? depth.last : -1;
  if (hint.level > 0) {
    depth.first =
        depth.first > 0 ? std::min(depth.first, hint.level) : hint.level;
    int reaches = hint.level + (hint.is_bottommost ? 0 : 1);
    if (num_levels > 1) reaches = std::min(reaches, num_levels - 1);
    depth.last = std::max(depth.last, reaches);
  }
  return hint;
}

// What the readers of the column family's tables observed.
std::vector<LevelObservation> TreePlanner::ObserveFor(
    const std::string& column_family) const {
  return state_->Observe(state_->DenseGroup(GroupOf(column_family)));
}

// Whether a flush's tables are kept (for the model plan): the tables
// built at L0 hold more than LearnedPlan::Options::l0_kept_share of the
// live keys, so compactions move them down whole (ascending keys) and
// they are the tree's keys at rest. The model plan then gives them the
// budget, as the learned plan does (it plans them on their live share).
// At the model's L0 bits they held every key of level_tree_bench's
// ascending trees well over the budget; at its last level's, under it
// with more false reads than blockbloom uniform's.
bool TreePlanner::FlushesKept(
    const LevelHint& hint,
    const std::vector<LevelObservation>& observed) const {
  if (!allocator_ || hint.compaction != LevelHint::Compaction::kLeveled ||
      hint.level != 0) {
    return false;
  }
  uint64_t live = 0;
  for (const LevelObservation& o : observed) live += o.keys;
  // And more of them live than L0 holds while compactions keep up
  // (LearnedPlan::Options::l0_backlog_tables): a young tree's first
  // flushes hold all of its keys too, until the first compaction. A
  // young tree whose L0 piles up on a busy machine may still pass both
  // for a while: its flushes then get the budget instead of L0's bits,
  // and are compacted away.
  const LearnedPlan::Options defaults;
  return observed[0].tables > defaults.l0_backlog_tables &&
         static_cast<double>(observed[0].keys) >
             defaults.l0_kept_share * static_cast<double>(live);
}

LevelAllocator::Choice TreePlanner::ChoiceFor(
    const LevelHint& hint, const std::string& column_family,
    absl::FunctionRef<void(const std::string&)> log) const {
  if (!allocator_ || !policy_.options().levels.level_learned ||
      hint.compaction != LevelHint::Compaction::kLeveled || hint.level < 0) {
    // The counters are read only for a level-aware flush.
    const bool kept = allocator_ && hint.level == 0 &&
                      FlushesKept(hint, ObserveFor(column_family));
    return {.kind = policy_.KindFor(hint),
            .bits_per_key = kept ? policy_.options().bits_per_key
                                 : policy_.BitsPerKey(hint)};
  }
  const std::string& cf = column_family;
  const std::vector<LevelObservation> observed = ObserveFor(cf);
  std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<LearnedPlan>& plan = plans_[cf];
  if (!plan) {
    LearnedPlan::Options o;
    o.budget = policy_.options().bits_per_key;
    plan = std::make_unique<LearnedPlan>(*allocator_, o);
  }
  const Depth& depth = depth_[cf];
  const int first = depth.first > 0 ? depth.first : 1;
  const int last = std::max(depth.last, first);
  if (plan->Update(observed, first, last)) {
    // One line per change: what the plan is now, and why (the probes).
    log(
        absl::StrFormat("[%s] blockbloom learned filter plan, update %d "
                        "(levels %d..%d):\n%s",
                        cf, plan->updates(), first, last, plan->Describe()));
  }
  // The plan chooses the kind when its allocator has several
  // (ribbon_saves kFalseReads); otherwise the policy's rule does.
  LevelAllocator::Choice choice =
      plan->ChoiceFor(LearnedPlan::GroupOf(hint.level, hint.is_bottommost));
  if (allocator_->options().kinds.empty()) choice.kind = policy_.KindFor(hint);
  return choice;
}

HotRangeContext TreePlanner::HotRangesFor(
    const LevelHint& hint, const LevelAllocator::Choice& choice,
    const std::string& column_family) const {
  // The bottommost tables (below L0) of a learned plan only: they
  // hold most keys and false reads (the upper levels have 2-3x the bits),
  // and the live ones cover the key space whatever the rewrites, so the
  // changes average 0 over them. The live tables of an upper level are a
  // biased sample: RocksDB compacts first the files that overlap least
  // below (narrow key ranges), so wide ranges, which see more probes per
  // key and got more bits, stay longer. Tried on every level below L0:
  // +0.13 bits/key over the budget in bench/rocksdb/level_tree_bench (an
  // upper level at 22.4 bits/key for a plan of 17.8).
  HotRangeContext hot;
  if (state_->heat() == nullptr || !allocator_ ||
      hint.compaction != LevelHint::Compaction::kLeveled || hint.level < 1 ||
      !hint.is_bottommost) {
    return hot;
  }
  hot.heat = state_->heat();
  hot.group = state_->DenseGroup(GroupOf(column_family));
  hot.plan_group = LearnedPlan::GroupOf(hint.level, hint.is_bottommost);
  hot.level_keys =
      state_->LiveKeys(PolicyState::SlotIndex(hot.group, hot.plan_group));
  // The rate curve's slope at the planned bits, over one bit/key: the
  // kind's own curve when the plan chooses kinds, the blocked kind's
  // otherwise (a ribbon's bits are then Bloom-equivalent).
  const FilterKind kind =
      allocator_->options().kinds.empty() ? FilterKind::kBlocked : choice.kind;
  const double b = std::max(choice.bits_per_key, 1.5);
  const double lower = allocator_->FpRate(kind, b - 0.5);
  const double upper = allocator_->FpRate(kind, b + 0.5);
  if (lower > 0 && upper > 0) hot.slope = std::log(lower / upper);
  return hot;
}

std::vector<LevelReport> TreePlanner::Report() const {
  std::vector<LevelReport> out;
  std::lock_guard<std::mutex> lock(mutex_);
  // Every group seen, by dense index: named if this process built its
  // tables (a reader-only process, such as `blockbloom rocksdb`, names
  // them from the OPTIONS file with RocksDBColumnFamilyGroup).
  std::map<std::string, int> names, group_of;
  const std::vector<int> groups = state_->Groups();
  for (size_t i = 0; i < groups.size(); ++i) {
    std::string name = absl::StrCat("group ", groups[i]);
    for (const auto& [cf, depth] : depth_) {
      (void)depth;
      if (GroupOf(cf) == groups[i]) name = cf;
    }
    names[name] = static_cast<int>(i);
    group_of[name] = groups[i];
  }
  for (const auto& [cf, depth] : depth_) {
    (void)depth;
    if (names.count(cf) == 0) {
      names[cf] = state_->DenseGroup(GroupOf(cf));
      group_of[cf] = GroupOf(cf);
    }
  }
  // A row of plan group `plan_group` (LearnedPlan::GroupOf; -1: no origin).
  const auto add = [&](const std::string& cf, int plan_group, int level,
                       const LevelObservation& o, FilterKind kind, double bits,
                       double planned_fpr, const char* source) {
    LevelReport r;
    r.column_family = cf;
    r.group = cf.empty() ? -1 : group_of[cf];
    r.level = level;
    r.bottommost = plan_group == LearnedPlan::kBottommost;
    r.kind = std::string(FilterKindName(kind));
    r.bits_per_key = bits;
    r.planned_fp_rate = planned_fpr;
    r.plan = source;
    r.tables = o.tables;
    r.keys = o.keys;
    r.filter_bytes = o.bytes;
    r.probes = o.probes;
    r.positives = o.positives;
    if (const RangeHeat* heat = state_->heat();
        heat != nullptr && plan_group >= 0 && !cf.empty()) {
      const RangeHeat::LevelHeat h =
          heat->Heat(state_->DenseGroup(group_of[cf]), plan_group);
      r.hot_range_tables = h.tables;
      r.hot_range_changed = h.changed;
      r.hot_range_mean_change = h.mean_abs_delta;
      r.hot_range_net_change = h.mean_delta;
    }
    out.push_back(r);
  };
  for (const auto& [name, dense] : names) {
    const std::vector<LevelObservation> observed = state_->Observe(dense);
    const auto plan = plans_.find(name);
    const auto known = depth_.find(name);
    const Depth depth = known != depth_.end() ? known->second : Depth{};
    for (int g = 0; g < LearnedPlan::kLevels; ++g) {
      const LevelObservation& o = observed[g];
      // The tree's rows: L0, the levels above the last, and the
      // bottommost tables (planned as the last level's, at the deepest
      // level known); others when they have tables or probes.
      const bool bottommost = g == LearnedPlan::kBottommost;
      const bool in_tree =
          g == 0 || (depth.first > 0 &&
                     (bottommost || (g >= depth.first && g < depth.last)));
      if (!in_tree && o.tables == 0 && o.probes == 0) continue;
      LevelHint hint;
      hint.level =
          bottommost
              ? std::max({depth.last, state_->DeepestBottommost(dense), 1})
              : g;
      hint.is_bottommost = bottommost;
      hint.first_level = depth.first > 0 ? depth.first : -1;
      hint.last_level = depth.last > 0 ? depth.last : -1;
      // The kind new tables get: the plan's when it chooses kinds
      // (ribbon_saves kFalseReads), otherwise the policy's rule.
      const bool plan_kinds =
          allocator_ && !allocator_->options().kinds.empty();
      if (plan != plans_.end()) {
        const LevelAllocator::Choice c = plan->second->ChoiceFor(g);
        add(name, g, hint.level, o, plan_kinds ? c.kind : policy_.KindFor(hint),
            c.bits_per_key, c.fp_rate, "learned");
      } else if (allocator_) {
        LevelAllocator::Choice c = allocator_->Choose(hint);
        if (FlushesKept(hint, observed)) {
          c.bits_per_key = policy_.options().bits_per_key;
          c.fp_rate = allocator_->FpRate(c.kind, c.bits_per_key);
        }
        // A learned policy that has built nothing in this process (e.g.
        // `blockbloom rocksdb`): its plan is still the prior, the model.
        add(name, g, hint.level, o, plan_kinds ? c.kind : policy_.KindFor(hint),
            c.bits_per_key, c.fp_rate,
            policy_.options().levels.level_learned ? "prior" : "model");
      } else {
        add(name, g, hint.level, o, policy_.KindFor(hint),
            policy_.options().bits_per_key,
            BlockedFpRate(policy_.options().bits_per_key), "uniform");
      }
    }
  }
  const LevelObservation unknown = state_->ObserveUnknown();
  if (unknown.tables > 0 || unknown.probes > 0) {
    add("", -1, -1, unknown, FilterKind::kBlocked, 0, 0, "unknown origin");
  }
  return out;
}

}  // namespace blockbloom::internal
