// Ribbon filters through FilterBuilder (FilterOptions::kind = kRibbon): a
// ribbon for the sizes where it is the better filter, a blocked filter at
// the same bits/key or rate where it is not (a few hundred keys and fewer;
// below 8,192 keys both are built and compared)
// and where no ribbon can be built (forced here); never a false negative;
// options that cannot make a ribbon are refused.
#include <cstdint>
#include <string>

#include "blockbloom/filter.h"
#include "gtest/gtest.h"
#include "src/ribbon/builder.h"
#include "src/ribbon/test_hooks.h"
#include "tests/ribbon/ribbon_testing.h"

namespace blockbloom {
namespace {

using internal::ribbon::ribbon_testing::Key;

// n keys, then every `again`-th once more, apart: the ribbon holds
// non-adjacent duplicates.
absl::StatusOr<Filter> BuildKeys(const FilterOptions& options, uint64_t n,
                                 uint64_t again = 5) {
  absl::StatusOr<FilterBuilder> builder = FilterBuilder::Create(options);
  if (!builder.ok()) return builder.status();
  for (uint64_t i = 0; i < n; ++i) builder->Add(Key(i));
  for (uint64_t i = 0; i < n; i += again) builder->Add(Key(i));
  return builder->Finish();
}

void ExpectAllFound(const Filter& filter, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(filter.MayContain(Key(i))) << i;
}

FilterOptions Ribbon() {
  FilterOptions options;
  options.kind = FilterKind::kRibbon;
  return options;
}

TEST(RibbonFallbackTest, LargeFiltersAreRibbons) {
  for (const double bits_per_key : {6.7, 10.0}) {
    FilterOptions options = Ribbon();
    options.bits_per_key = bits_per_key;
    absl::StatusOr<Filter> filter = BuildKeys(options, 50000);
    ASSERT_TRUE(filter.ok()) << filter.status();
    EXPECT_EQ(filter->kind(), FilterKind::kRibbon);
    ExpectAllFound(*filter, 50000);
    // The budget holds, and at 10 bits/key the rate is a blocked filter's
    // at ~15: under 0.15%.
    EXPECT_LE(filter->bits().size() * 8.0, bits_per_key * filter->num_keys());
    if (bits_per_key == 10) {
      EXPECT_LT(filter->EstimatedFpRate(), 0.0015);
    }
  }
  FilterOptions options = Ribbon();
  options.fp_rate = 0.001;
  absl::StatusOr<Filter> filter = BuildKeys(options, 50000);
  ASSERT_TRUE(filter.ok()) << filter.status();
  EXPECT_EQ(filter->kind(), FilterKind::kRibbon);
  EXPECT_LE(filter->EstimatedFpRate(), 0.001);
  ExpectAllFound(*filter, 50000);
}

TEST(RibbonFallbackTest, NoKeys) {
  absl::StatusOr<Filter> filter = BuildKeys(Ribbon(), 0);
  ASSERT_TRUE(filter.ok()) << filter.status();
  EXPECT_EQ(filter->kind(), FilterKind::kRibbon);
  EXPECT_FALSE(filter->MayContain("x"));
  EXPECT_FALSE(filter->is_match_all());
}

TEST(RibbonFallbackTest, SmallFiltersAreBlockedWhereThatIsBetter) {
  // 20 keys at 10 bits/key: a one-block ribbon (64 slots) gets 3 columns
  // (12.5%), the blocked filter a few tenths of a percent.
  absl::StatusOr<Filter> filter = BuildKeys(Ribbon(), 20);
  ASSERT_TRUE(filter.ok()) << filter.status();
  EXPECT_EQ(filter->kind(), FilterKind::kBlocked);
  ExpectAllFound(*filter, 20);
  // From a few dozen keys the ribbon wins (50 keys: one block, 7 columns).
  for (const uint64_t n : {50, 3000}) {
    filter = BuildKeys(Ribbon(), n);
    ASSERT_TRUE(filter.ok()) << filter.status();
    EXPECT_EQ(filter->kind(), FilterKind::kRibbon) << n;
  }
}

// Below 8,192 keys the builder makes both kinds and keeps the better: never
// a worse rate in the same budget, never more bytes for the same rate, than
// the blocked kind alone; a ribbon from a few hundred keys (the estimates
// alone chose the blocked kind up to ~1,500 keys, at twice the ribbon's
// rate); every key found either way.
TEST(RibbonFallbackTest, SmallFiltersKeepTheBetterOfBoth) {
  for (const uint64_t n : {20, 100, 300, 500, 1000, 2000, 5000, 8191}) {
    SCOPED_TRACE(n);
    FilterOptions ribbon = Ribbon();
    FilterOptions blocked;
    absl::StatusOr<Filter> r = BuildKeys(ribbon, n);
    absl::StatusOr<Filter> b = BuildKeys(blocked, n);
    ASSERT_TRUE(r.ok() && b.ok());
    ExpectAllFound(*r, n);
    EXPECT_LE(r->EstimatedFpRate(), b->EstimatedFpRate());
    EXPECT_LE(r->bits().size(), b->bits().size());
    if (n >= 500) {
      EXPECT_EQ(r->kind(), FilterKind::kRibbon);
    }
    ribbon.fp_rate = blocked.fp_rate = 0.01;
    r = BuildKeys(ribbon, n);
    b = BuildKeys(blocked, n);
    ASSERT_TRUE(r.ok() && b.ok());
    ExpectAllFound(*r, n);
    EXPECT_LE(r->EstimatedFpRate(), 0.01);
    EXPECT_LE(r->bits().size(), b->bits().size());
  }
}

TEST(RibbonFallbackTest, AFailedBuildFallsBackToBlocked) {
  // One layer allowed: 20,000 keys always bump some, every salt fails.
  // (Few duplicates: a layer is sized for every hash given, and with 20%
  // of them duplicates the distinct keys would fit in one.)
  const internal::ribbon::ScopedMaxLayersForTest one_layer(1);
  for (const bool by_rate : {false, true}) {
    FilterOptions options = Ribbon();
    options.bits_per_key = 7;
    if (by_rate) options.fp_rate = 0.004;
    absl::StatusOr<Filter> filter = BuildKeys(options, 20000, 50);
    ASSERT_TRUE(filter.ok()) << filter.status();
    EXPECT_EQ(filter->kind(), FilterKind::kBlocked);
    ExpectAllFound(*filter, 20000);
    if (by_rate) {
      EXPECT_LE(filter->EstimatedFpRate(), 0.004);
    } else {
      EXPECT_NEAR(filter->bits().size() * 8.0 / filter->num_keys(), 7, 0.05);
    }
  }
}

TEST(RibbonFallbackTest, UnluckySaltsRetryThenFallBack) {
  // Every salt failing (as a pathological key set would): the blocked
  // filter; all but the last failing: a ribbon of the last salt.
  for (const int failing :
       {internal::ribbon::kMaxAttempts - 1, internal::ribbon::kMaxAttempts}) {
    const internal::ribbon::ScopedFailingSaltsForTest fail(failing);
    absl::StatusOr<Filter> filter = BuildKeys(Ribbon(), 10000);
    ASSERT_TRUE(filter.ok()) << filter.status();
    EXPECT_EQ(filter->kind(), failing < internal::ribbon::kMaxAttempts
                                  ? FilterKind::kRibbon
                                  : FilterKind::kBlocked);
    ExpectAllFound(*filter, 10000);
  }
}

TEST(RibbonFallbackTest, OptionsThatCannotMakeARibbonAreRefused) {
  FilterOptions exact = Ribbon();
  exact.exact_size = true;
  EXPECT_EQ(FilterBuilder::Create(exact).status().code(),
            absl::StatusCode::kInvalidArgument);
  FilterOptions shaped = Ribbon();
  shaped.shape = FilterShape{4, 6, 32};
  absl::Status status = FilterBuilder::Create(shaped).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("not a fixed shape"), std::string::npos)
      << status;
  FilterOptions other;
  other.kind = FilterKind::kSet;
  EXPECT_EQ(FilterBuilder::Create(other).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace blockbloom
