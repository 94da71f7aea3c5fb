// The kind per level (LevelAllocator::Options::kinds, KindCurve): with the
// ribbon kind's curve (RibbonFpRate) beside the blocked kind's, the plan
// gives the ribbon the levels where it saves the most at the common
// multiplier, keeps it off the levels above its first_level, charges its
// probe cost, and still spends exactly the budget. RibbonFpRate is checked
// against ribbons built at those bits.
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/filter.h"
#include "blockbloom/level_allocation.h"
#include "gtest/gtest.h"

namespace blockbloom {
namespace {

KindCurve RibbonKind(double probe_cost, int first_level) {
  KindCurve k;
  k.kind = FilterKind::kRibbon;
  k.fp_rate = RibbonFpRate;
  k.probe_cost = probe_cost;
  k.first_level = first_level;
  return k;
}

LevelAllocator WithKinds(std::vector<KindCurve> kinds) {
  LevelAllocator::Options o;
  o.bits_per_key = 10;
  o.kinds = std::move(kinds);
  return *LevelAllocator::Create(o);
}

double Spent(const std::vector<LevelAllocator::Group>& groups,
             const std::vector<LevelAllocator::Choice>& choices) {
  double bits = 0, keys = 0;
  for (size_t j = 0; j < groups.size(); ++j) {
    bits += groups[j].keys * choices[j].bits_per_key;
    keys += groups[j].keys;
  }
  return bits / keys;
}

TEST(KindPlanTest, TheRibbonTakesTheLevelsBelowL0AndLowersTheCost) {
  const LevelAllocator blocked = WithKinds({});
  const LevelAllocator both = WithKinds({KindCurve{}, RibbonKind(0, 1)});
  const std::vector<LevelAllocator::Group> groups = both.ModelGroups(4);
  const std::vector<LevelAllocator::Choice> a = blocked.Optimize(groups, 10);
  const std::vector<LevelAllocator::Choice> b = both.Optimize(groups, 10);
  EXPECT_NEAR(Spent(groups, a), 10, 1e-6);
  EXPECT_NEAR(Spent(groups, b), 10, 1e-6);
  EXPECT_EQ(b[0].kind, FilterKind::kBlocked);  // first_level 1: not L0
  for (size_t j = 1; j < b.size(); ++j) {
    EXPECT_EQ(b[j].kind, FilterKind::kRibbon) << "level " << j;
  }
  // ~2^-c against the blocked kind's ~1.5x the bound: far fewer false reads.
  EXPECT_LT(both.ExpectedCost(groups, b),
            0.5 * blocked.ExpectedCost(groups, a));
}

TEST(KindPlanTest, AProbeCostKeepsTheBlockedKindWhereProbesAreMany) {
  // A probe cost as large as the blocked kind's rate at 10 bits/key: worth
  // it only where the rate saved is larger, i.e. nowhere at this budget.
  const LevelAllocator costly = WithKinds({KindCurve{}, RibbonKind(0.05, 0)});
  const std::vector<LevelAllocator::Group> groups = costly.ModelGroups(4);
  for (const LevelAllocator::Choice& c : costly.Optimize(groups, 10)) {
    EXPECT_EQ(c.kind, FilterKind::kBlocked);
  }
}

TEST(KindPlanTest, RejectsBadKinds) {
  LevelAllocator::Options o;
  o.kinds = {KindCurve{}, KindCurve{}};
  EXPECT_FALSE(LevelAllocator::Create(o).ok());  // listed twice
  o.kinds = {RibbonKind(-1, 0)};
  EXPECT_FALSE(LevelAllocator::Create(o).ok());  // negative probe cost
  o.kinds = {RibbonKind(0, 1)};
  EXPECT_FALSE(LevelAllocator::Create(o).ok());  // nothing for L0
  KindCurve no_curve;
  no_curve.kind = static_cast<FilterKind>(200);  // no kind of the library's
  o.kinds = {KindCurve{}, no_curve};
  EXPECT_FALSE(LevelAllocator::Create(o).ok());  // no rate curve
  // A kind of the library's without a curve takes its own.
  no_curve.kind = FilterKind::kRibbon;
  o.kinds = {KindCurve{}, no_curve};
  absl::StatusOr<LevelAllocator> ribbon = LevelAllocator::Create(o);
  ASSERT_TRUE(ribbon.ok()) << ribbon.status();
  EXPECT_EQ(ribbon->FpRate(FilterKind::kRibbon, 10), RibbonFpRate(10));
}

// The curve the plan uses is the rate of the ribbons the builder makes at
// those bits/key: within 3% of a built ribbon's exact rate (from its layers;
// tests/ribbon/fp_rate_test.cc checks that against measured rates) at 2^20
// keys, the size it is estimated for, in no more bytes than planned; a
// measured rate agrees too. Smaller tables have slightly higher rates (100k
// keys: 4-13% from 4 to 16 bits/key), which the plan does not model.
TEST(KindPlanTest, RibbonFpRateIsTheBuiltRibbonsRate) {
  constexpr int kKeys = 1 << 20;
  for (double bits : {6.0, 10.0, 13.0}) {
    SCOPED_TRACE(absl::StrCat(bits, " bits/key"));
    FilterOptions options;
    options.kind = FilterKind::kRibbon;
    options.bits_per_key = bits;
    FilterBuilder builder = *FilterBuilder::Create(options);
    for (int i = 0; i < kKeys; ++i) builder.Add(absl::StrCat("key", i));
    const Filter filter = *builder.Finish();
    ASSERT_EQ(filter.kind(), FilterKind::kRibbon);
    EXPECT_LE(8.0 * static_cast<double>(filter.bits().size()) / kKeys,
              bits * 1.001);
    EXPECT_NEAR(filter.EstimatedFpRate() / RibbonFpRate(bits), 1.0, 0.03);
    // Below the blocked kind's rate at the same bits: 3.6x at 6 bits/key,
    // 9.6x at 10.
    EXPECT_LT(3 * RibbonFpRate(bits), BlockedFpRate(bits));
    if (bits == 10.0) {
      constexpr int kAbsent = 400'000;
      int positives = 0;
      for (int i = 0; i < kAbsent; ++i) {
        positives += filter.MayContain(absl::StrCat("absent", i));
      }
      const double expected = RibbonFpRate(bits) * kAbsent;
      EXPECT_NEAR(positives, expected, 5 * std::sqrt(expected));
    }
  }
}

}  // namespace
}  // namespace blockbloom
