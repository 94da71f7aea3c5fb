// The tree planner (src/policy/tree_planner.h), without an engine: the
// populated levels it learns per column family, the choice of a new table's
// kind and bits (budget, model, learned plan), the plan's log line, the hot
// ranges' context, and the report rows.
#include "src/policy/tree_planner.h"

#include <memory>
#include <string>
#include <vector>

#include "blockbloom/filter_policy.h"
#include "blockbloom/level_allocation.h"
#include "gtest/gtest.h"
#include "src/levels/learned_plan.h"
#include "src/levels/policy_state.h"
#include "src/levels/probe_counters.h"

namespace blockbloom::internal {
namespace {

FilterPolicy Policy(bool level_aware, bool level_learned) {
  FilterPolicy::Options o;
  o.bits_per_key = 10;
  o.levels.level_aware = level_aware;
  o.levels.level_learned = level_learned;
  return *FilterPolicy::Create(o);
}

LevelHint Table(int level, bool bottommost = false) {
  LevelHint hint;
  hint.level = level;
  hint.is_bottommost = bottommost;
  hint.compaction = LevelHint::Compaction::kLeveled;
  return hint;
}

const auto kNoLog = [](const std::string&) {};

TEST(TreePlanner, LearnsPopulatedLevelsPerColumnFamily) {
  const FilterPolicy policy = Policy(true, false);
  const TreePlanner planner(policy, std::make_shared<PolicyState>(false));
  // Nothing known yet: the table's own level and the one below.
  LevelHint h = planner.HintFor(Table(2), 7, "a");
  EXPECT_EQ(h.first_level, -1);
  EXPECT_EQ(h.last_level, -1);
  // Then what the first table taught: data at L2, and below it.
  h = planner.HintFor(Table(4, /*bottommost=*/true), 7, "a");
  EXPECT_EQ(h.first_level, 2);
  EXPECT_EQ(h.last_level, 3);
  h = planner.HintFor(Table(1), 7, "a");
  EXPECT_EQ(h.first_level, 2);
  EXPECT_EQ(h.last_level, 4);
  h = planner.HintFor(Table(0), 7, "a");
  EXPECT_EQ(h.first_level, 1);
  EXPECT_EQ(h.last_level, 4);
  // Another column family learns on its own.
  h = planner.HintFor(Table(0), 7, "b");
  EXPECT_EQ(h.first_level, -1);
  // Never deeper than the tree: num_levels 3 ends at L2.
  planner.HintFor(Table(2), 3, "c");
  EXPECT_EQ(planner.HintFor(Table(0), 3, "c").last_level, 2);
}

TEST(TreePlanner, OneLevelOrOtherCompactionsAreNotLevelAware) {
  const FilterPolicy policy = Policy(true, false);
  const TreePlanner planner(policy, std::make_shared<PolicyState>(false));
  EXPECT_EQ(planner.HintFor(Table(0), 1, "a").level, -1);
  LevelHint universal = Table(3);
  universal.compaction = LevelHint::Compaction::kUniversal;
  const LevelHint h = planner.HintFor(universal, 7, "a");
  EXPECT_EQ(h.level, 3);
  EXPECT_EQ(h.first_level, -1);
  // Universal tables taught nothing about the leveled tree.
  EXPECT_EQ(planner.HintFor(Table(1), 7, "a").first_level, -1);
}

TEST(TreePlanner, ChoiceIsTheBudgetTheModelOrTheLearnedPlan) {
  const FilterPolicy uniform = Policy(false, false);
  const TreePlanner budget(uniform, std::make_shared<PolicyState>(false));
  const LevelHint l3 = budget.HintFor(Table(3), 7, "a");
  LevelAllocator::Choice c = budget.ChoiceFor(l3, "a", kNoLog);
  EXPECT_EQ(c.kind, FilterKind::kBlocked);
  EXPECT_DOUBLE_EQ(c.bits_per_key, 10);

  // The model: an upper level gets more bits than the last one.
  const FilterPolicy model_policy = Policy(true, false);
  const TreePlanner model(model_policy, std::make_shared<PolicyState>(false));
  model.HintFor(Table(4, true), 7, "a");
  const LevelHint upper = model.HintFor(Table(1), 7, "a");
  const LevelHint last = model.HintFor(Table(4, true), 7, "a");
  const double upper_bits = model.ChoiceFor(upper, "a", kNoLog).bits_per_key;
  const double last_bits = model.ChoiceFor(last, "a", kNoLog).bits_per_key;
  EXPECT_DOUBLE_EQ(upper_bits, model_policy.BitsPerKey(upper));
  EXPECT_GT(upper_bits, last_bits);

  // Learned: the prior is the model's plan, and every change is logged.
  const FilterPolicy learned_policy = Policy(true, true);
  const TreePlanner learned(learned_policy,
                            std::make_shared<PolicyState>(false));
  learned.HintFor(Table(4, true), 7, "a");
  const LevelHint lu = learned.HintFor(Table(1), 7, "a");
  std::vector<std::string> lines;
  const double learned_upper =
      learned
          .ChoiceFor(lu, "a",
                     [&](const std::string& line) { lines.push_back(line); })
          .bits_per_key;
  EXPECT_GT(learned_upper, 10);
  for (const std::string& line : lines) {
    EXPECT_NE(line.find("[a] blockbloom learned filter plan"),
              std::string::npos)
        << line;
  }
}

TEST(TreePlanner, HotRangesOnlyForBottommostTablesOfALearnedPlan) {
  FilterPolicy::Options o;
  o.levels.level_aware = true;
  o.levels.level_learned = true;
  o.levels.hot_ranges = true;
  const FilterPolicy policy = *FilterPolicy::Create(o);
  const auto state = std::make_shared<PolicyState>(true);
  const TreePlanner planner(policy, state);
  const LevelHint bottom = planner.HintFor(Table(3, true), 7, "a");
  const LevelAllocator::Choice c = planner.ChoiceFor(bottom, "a", kNoLog);
  const HotRangeContext hot = planner.HotRangesFor(bottom, c, "a");
  EXPECT_EQ(hot.heat, state->heat());
  EXPECT_EQ(hot.plan_group, LearnedPlan::kBottommost);
  EXPECT_GT(hot.slope, 0);  // ln(rate) falls as bits grow
  const LevelHint flush = planner.HintFor(Table(0), 7, "a");
  EXPECT_EQ(planner.HotRangesFor(flush, c, "a").heat, nullptr);
  const FilterPolicy no_heat = Policy(true, true);
  const TreePlanner without(no_heat, std::make_shared<PolicyState>(false));
  EXPECT_EQ(without.HotRangesFor(bottom, c, "a").heat, nullptr);
}

TEST(TreePlanner, ReportNamesThePlanOfEachLevel) {
  const FilterPolicy uniform = Policy(false, false);
  const TreePlanner u(uniform, std::make_shared<PolicyState>(false));
  std::vector<LevelReport> rows = u.Report();
  EXPECT_TRUE(rows.empty());  // no group seen yet

  const FilterPolicy learned_policy = Policy(true, true);
  const auto state = std::make_shared<PolicyState>(false);
  const TreePlanner learned(learned_policy, state);
  learned.HintFor(Table(1), 7, "cf");
  learned.HintFor(Table(3, true), 7, "cf");
  rows = learned.Report();
  ASSERT_FALSE(rows.empty());
  for (const LevelReport& r : rows) {
    EXPECT_EQ(r.column_family, "cf");
    EXPECT_EQ(r.group, GroupOf("cf"));
    EXPECT_EQ(r.plan, "prior") << r.level;  // nothing built yet
  }
  // L0, L1 .. L2 (data reaches L3: its tables are the bottommost row).
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].level, 0);
  EXPECT_TRUE(rows.back().bottommost);
  EXPECT_EQ(rows.back().level, 3);
  learned.ChoiceFor(learned.HintFor(Table(3, true), 7, "cf"), "cf", kNoLog);
  for (const LevelReport& r : learned.Report()) EXPECT_EQ(r.plan, "learned");
}

}  // namespace
}  // namespace blockbloom::internal
