// FilterPolicy::LevelOptions::ribbon_from_level: which builders get the ribbon
// kind, and that a ribbon level keeps the rate bits_per_key gives the blocked
// kind ("Bloom-equivalent" bits/key, as RocksDB's Ribbon) in fewer bytes;
// with ribbon_saves = kFalseReads, that it keeps the bytes and lowers the
// rate, and that the level_aware plan then chooses the kinds.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "blockbloom/filter_policy.h"
#include "blockbloom/format.h"
#include "blockbloom/level_allocation.h"
#include "blockbloom/sizing.h"
#include "gtest/gtest.h"

namespace blockbloom {
namespace {

LevelHint AtLevel(int level) {
  LevelHint hint;
  hint.level = level;
  return hint;
}

// A block for keys [0, n) built by `policy` for `hint`.
std::string Block(const FilterPolicy& policy, const LevelHint& hint, int n) {
  FilterPolicy::Builder builder = policy.NewBuilder(hint);
  for (int i = 0; i < n; ++i) builder.AddKey("key" + std::to_string(i));
  std::string block;
  EXPECT_TRUE(builder.Finish(&block).ok());
  return block;
}

FilterKind KindOf(const std::string& block) {
  absl::StatusOr<FilterInfo> info = InspectFilter(AsBytes(block));
  EXPECT_TRUE(info.ok()) << info.status();
  return info.ok() ? info->kind : FilterKind::kBlocked;
}

TEST(KindPerLevelTest, DefaultIsBlockedEverywhere) {
  const FilterPolicy policy = *FilterPolicy::Create({});
  EXPECT_EQ(policy.options().levels.ribbon_from_level,
            FilterPolicy::LevelOptions::kNoRibbon);
  for (int level : {-1, 0, 1, 6, 100}) {
    EXPECT_EQ(policy.KindFor(AtLevel(level)), FilterKind::kBlocked) << level;
  }
  EXPECT_EQ(KindOf(Block(policy, AtLevel(6), 20'000)), FilterKind::kBlocked);
}

TEST(KindPerLevelTest, RibbonFromTheLevelDown) {
  FilterPolicy::Options o;
  o.levels.ribbon_from_level = 1;
  const FilterPolicy policy = *FilterPolicy::Create(o);
  EXPECT_EQ(policy.KindFor(AtLevel(-1)), FilterKind::kBlocked);
  EXPECT_EQ(policy.KindFor(AtLevel(0)), FilterKind::kBlocked);
  EXPECT_EQ(policy.KindFor(AtLevel(1)), FilterKind::kRibbon);
  EXPECT_EQ(policy.KindFor(AtLevel(6)), FilterKind::kRibbon);
  EXPECT_EQ(KindOf(Block(policy, AtLevel(0), 20'000)), FilterKind::kBlocked);
  EXPECT_EQ(KindOf(Block(policy, AtLevel(2), 20'000)), FilterKind::kRibbon);
  // Builders without a hint: blocked.
  FilterPolicy::Builder plain = policy.NewBuilder();
  for (int i = 0; i < 20'000; ++i) plain.AddKey("key" + std::to_string(i));
  std::string block;
  ASSERT_TRUE(plain.Finish(&block).ok());
  EXPECT_EQ(KindOf(block), FilterKind::kBlocked);
  // Small tables: whichever kind is smaller at the ribbon's rate (the
  // builder makes both below 8,192 keys); from a few hundred keys that is a
  // ribbon, smaller than the blocked kind's filter at the same bits/key.
  // (Tables of a few dozen keys get the ribbon's rate, better than the
  // blocked kind's at their size, in more bytes: 50 keys, 109 against 67.)
  FilterPolicy::Options blocked_only = o;
  blocked_only.levels.ribbon_from_level = FilterPolicy::LevelOptions::kNoRibbon;
  const FilterPolicy blocked = *FilterPolicy::Create(blocked_only);
  for (int n : {300, 1000, 5000}) {
    const std::string small = Block(policy, AtLevel(2), n);
    EXPECT_EQ(KindOf(small), FilterKind::kRibbon) << n;
    EXPECT_LT(small.size(), Block(blocked, AtLevel(2), n).size()) << n;
  }

  o.levels.ribbon_from_level =
      -1;  // everywhere, files of unknown level included
  EXPECT_EQ(FilterPolicy::Create(o)->KindFor(AtLevel(-1)), FilterKind::kRibbon);
  o.levels.ribbon_from_level = -2;
  EXPECT_FALSE(FilterPolicy::Create(o).ok());
  // Exact-size policies (per-data-block filters) never build ribbons.
  o.levels.ribbon_from_level = -1;
  o.exact_size = true;
  EXPECT_EQ(FilterPolicy::Create(o)->KindFor(AtLevel(3)), FilterKind::kBlocked);
}

// The ribbon is built for the rate of the blocked kind at the same bits/key,
// and takes about 30% fewer bytes for it.
TEST(KindPerLevelTest, BloomEquivalentBitsPerKey) {
  constexpr int kKeys = 100'000;
  constexpr int kProbes = 400'000;
  for (double bits : {6.0, 10.0, 16.0}) {
    FilterPolicy::Options o;
    o.bits_per_key = bits;
    o.levels.ribbon_from_level = 1;
    const FilterPolicy policy = *FilterPolicy::Create(o);
    const std::string blocked = Block(policy, AtLevel(0), kKeys);
    const std::string ribbon = Block(policy, AtLevel(1), kKeys);
    ASSERT_EQ(KindOf(ribbon), FilterKind::kRibbon);
    const double expected =
        *EstimatedFpRate(*ShapeForBitsPerKey(kKeys, bits), kKeys);
    const Filter blocked_filter = policy.NewReader(AsBytes(blocked));
    const Filter ribbon_filter = policy.NewReader(AsBytes(ribbon));
    int fp_blocked = 0, fp_ribbon = 0;
    for (int i = 0; i < kProbes; ++i) {
      const std::string absent = "absent" + std::to_string(i);
      fp_blocked += blocked_filter.MayContain(absent);
      fp_ribbon += ribbon_filter.MayContain(absent);
    }
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(ribbon_filter.MayContain("key" + std::to_string(i)));
    }
    const double rate = static_cast<double>(fp_ribbon) / kProbes;
    const double sigma = std::sqrt(expected / kProbes);
    std::printf(
        "%.0f bits/key: blocked %zu bytes, %.4f%%; ribbon %zu bytes, %.4f%% "
        "(asked %.4f%%)\n",
        bits, blocked.size(), 100.0 * fp_blocked / kProbes, ribbon.size(),
        100 * rate, 100 * expected);
    EXPECT_LE(rate, expected + 5 * sigma) << bits;
    EXPECT_LT(ribbon.size(), blocked.size() * 0.8) << bits;
  }
}

// level_aware: a ribbon level gets the plan's bits for its level, read as
// Bloom-equivalent (the blocked kind's rate at those bits, in fewer bytes).
TEST(KindPerLevelTest, LevelAwarePlanBitsAreBloomEquivalent) {
  constexpr int kKeys = 50'000;
  FilterPolicy::Options o;
  o.levels.level_aware = true;
  o.levels.ribbon_from_level = 1;
  const FilterPolicy policy = *FilterPolicy::Create(o);
  LevelHint hint;
  hint.level = 2;
  hint.first_level = 1;
  hint.last_level = 4;
  const double bits = policy.BitsPerKey(hint);
  EXPECT_NE(bits, 10);  // the plan's, not the budget
  const std::string ribbon = Block(policy, hint, kKeys);
  ASSERT_EQ(KindOf(ribbon), FilterKind::kRibbon);
  // The blocked kind's rate at the plan's bits on a large table (the
  // policy's reference size, 2^20 keys).
  constexpr uint64_t kReference = uint64_t{1} << 20;
  const double expected =
      *EstimatedFpRate(*ShapeForBitsPerKey(kReference, bits), kReference);
  const Filter filter = policy.NewReader(AsBytes(ribbon));
  EXPECT_LE(filter.EstimatedFpRate(), expected * 1.01) << bits;
  EXPECT_LT(8.0 * ribbon.size() / kKeys, bits * 0.8) << bits;
}

// kFalseReads without level_aware: the ribbon levels take the blocked
// kind's bytes (bits_per_key real bits) and their rate is the ribbon's at
// those bits, ~10x lower at 10 bits/key.
TEST(KindPerLevelTest, FalseReadsKeepTheBytesAndLowerTheRate) {
  constexpr int kKeys = 100'000;
  constexpr int kProbes = 400'000;
  FilterPolicy::Options o;
  o.levels.ribbon_from_level = 1;
  o.levels.ribbon_saves = FilterPolicy::LevelOptions::RibbonSaving::kFalseReads;
  const FilterPolicy policy = *FilterPolicy::Create(o);
  EXPECT_EQ(policy.KindFor(AtLevel(0)), FilterKind::kBlocked);
  EXPECT_EQ(policy.KindFor(AtLevel(3)), FilterKind::kRibbon);
  const std::string blocked = Block(policy, AtLevel(0), kKeys);
  const std::string ribbon = Block(policy, AtLevel(3), kKeys);
  ASSERT_EQ(KindOf(ribbon), FilterKind::kRibbon);
  EXPECT_NEAR(static_cast<double>(ribbon.size()) / blocked.size(), 1.0, 0.03);
  const Filter blocked_filter = policy.NewReader(AsBytes(blocked));
  const Filter ribbon_filter = policy.NewReader(AsBytes(ribbon));
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(ribbon_filter.MayContain("key" + std::to_string(i)));
  }
  int fp_blocked = 0, fp_ribbon = 0;
  for (int i = 0; i < kProbes; ++i) {
    const std::string absent = "absent" + std::to_string(i);
    fp_blocked += blocked_filter.MayContain(absent);
    fp_ribbon += ribbon_filter.MayContain(absent);
  }
  // ~0.96% against ~0.1%: a factor 5 leaves room for the sampling error.
  EXPECT_LT(5 * fp_ribbon, fp_blocked);
  // Exact-size policies stay blocked (a ribbon is the larger small filter).
  o.exact_size = true;
  const FilterPolicy exact = *FilterPolicy::Create(o);
  EXPECT_EQ(exact.KindFor(AtLevel(3)), FilterKind::kBlocked);
}

// kFalseReads with level_aware: the plan is made over both kinds' real
// curves. The model tree's memory is still the budget (sum keys * bits over
// the plan's choices), the levels above ribbon_from_level stay blocked, the
// deep levels take the ribbon, and the expected false reads fall well below
// the blocked plan's at the same memory.
TEST(KindPerLevelTest, LevelAwarePlanChoosesTheKinds) {
  FilterPolicy::Options o;
  o.levels.level_aware = true;
  o.levels.ribbon_from_level = 1;
  o.levels.ribbon_saves = FilterPolicy::LevelOptions::RibbonSaving::kFalseReads;
  const FilterPolicy policy = *FilterPolicy::Create(o);
  o.levels.ribbon_saves = FilterPolicy::LevelOptions::RibbonSaving::kMemory;
  const FilterPolicy memory = *FilterPolicy::Create(o);

  LevelAllocator::Options both_kinds;
  KindCurve ribbon;
  ribbon.kind = FilterKind::kRibbon;
  ribbon.fp_rate = RibbonFpRate;
  ribbon.first_level = 1;
  both_kinds.kinds = {KindCurve{}, ribbon};
  const LevelAllocator planner = *LevelAllocator::Create(both_kinds);
  const LevelAllocator blocked = *LevelAllocator::Create({});
  const std::vector<LevelAllocator::Group> groups = planner.ModelGroups(4);
  double keys = 0, bits = 0;
  std::vector<LevelAllocator::Choice> choices;
  for (int l = 0; l <= 4; ++l) {
    LevelHint hint;
    hint.level = l;
    hint.first_level = 1;
    hint.last_level = 4;
    hint.is_bottommost = l == 4;
    const FilterKind kind = policy.KindFor(hint);
    EXPECT_EQ(kind, l == 0 ? FilterKind::kBlocked : FilterKind::kRibbon) << l;
    // kMemory: the rule, at the blocked plan's bits.
    EXPECT_EQ(memory.KindFor(hint), kind) << l;
    choices.push_back({kind, policy.BitsPerKey(hint),
                       planner.FpRate(kind, policy.BitsPerKey(hint))});
    keys += groups[l].keys;
    bits += groups[l].keys * policy.BitsPerKey(hint);
  }
  EXPECT_NEAR(bits / keys, 10, 0.01);
  const double reads = planner.ExpectedCost(groups, choices);
  const double blocked_reads =
      blocked.ExpectedCost(groups, blocked.Optimize(groups, 10));
  EXPECT_LT(reads, 0.3 * blocked_reads) << reads << " " << blocked_reads;
  // Files of unknown level: blocked at the budget.
  EXPECT_EQ(policy.KindFor(AtLevel(-1)), FilterKind::kBlocked);
  EXPECT_EQ(policy.BitsPerKey(AtLevel(-1)), 10);
  // A ribbon level's builder makes a ribbon of the plan's real bits.
  LevelHint deep;
  deep.level = 3;
  deep.first_level = 1;
  deep.last_level = 4;
  const std::string block = Block(policy, deep, 50'000);
  ASSERT_EQ(KindOf(block), FilterKind::kRibbon);
  EXPECT_NEAR(8.0 * block.size() / 50'000 / policy.BitsPerKey(deep), 1.0, 0.03);
}

}  // namespace
}  // namespace blockbloom
