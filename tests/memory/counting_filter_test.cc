// CountingFilter: Add/Remove/MayContain on the w = 8 layout, sizing, the
// documented risks (removing a key never added creates false negatives;
// saturated counters never decrement), and the membership export.
#include "blockbloom/counting_filter.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/bloom_filter.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/hash.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/core/layout.h"
#include "tests/memory/memory_test_util.h"

namespace blockbloom {
namespace {

CountingFilter Make(uint64_t n, double fp_rate, uint64_t seed) {
  CountingFilterOptions options;
  options.seed = seed;
  return testing::Created(CountingFilter::Create(n, fp_rate, options));
}

std::string Key(int i) { return absl::StrCat("item-", i); }

TEST(CountingFilterTest, SizingReachesTheRateWithEightBitLanes) {
  for (double fp_rate : {0.05, 0.01, 0.001}) {
    absl::StatusOr<FilterShape> shape =
        CountingShapeForFpRate(100'000, fp_rate);
    ASSERT_TRUE(shape.ok());
    EXPECT_EQ(shape->lane_bits, 8);
    EXPECT_LE(*EstimatedFpRate(*shape, 100'000), fp_rate);
    // The fewest blocks that reach it.
    FilterShape smaller = *shape;
    --smaller.num_blocks;
    smaller.num_probes = *OptimalNumProbes(100'000, smaller.num_blocks, 8);
    EXPECT_GT(*EstimatedFpRate(smaller, 100'000), fp_rate);
    std::printf("fp_rate %g: %.2f positions/key (%.1f bits/key), k = %d\n",
                fp_rate, 128.0 * shape->num_blocks / 100'000,
                512.0 * shape->num_blocks / 100'000, shape->num_probes);
  }
  EXPECT_EQ(CountingShapeForFpRate(0, 0.01).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CountingShapeForFpRate(10, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CountingFilter::CreateWithShape({10, 4, 32}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CountingFilterTest, AddRemoveAndNoFalseNegativesForRemainingKeys) {
  const int n = 50'000;
  CountingFilter f = Make(n, 0.01, 1);
  for (int i = 0; i < n; ++i) f.Add(Key(i));
  EXPECT_EQ(f.num_items(), static_cast<uint64_t>(n));
  for (int i = 0; i < n; ++i) ASSERT_TRUE(f.MayContain(Key(i)));
  // Remove the even keys: the odd ones must all remain; the even ones are
  // gone except for false positives at the rate of a half-full filter.
  for (int i = 0; i < n; i += 2) ASSERT_TRUE(f.Remove(Key(i))) << i;
  EXPECT_EQ(f.num_items(), static_cast<uint64_t>(n / 2));
  for (int i = 1; i < n; i += 2) ASSERT_TRUE(f.MayContain(Key(i))) << i;
  int still = 0;
  for (int i = 0; i < n; i += 2) still += f.MayContain(Key(i));
  const double rate = f.EstimatedFpRate();
  EXPECT_LT(still, n / 2 * rate + 5 * std::sqrt(n / 2 * rate) + 5);
  // The count estimate follows the removals.
  EXPECT_NEAR(static_cast<double>(f.ApproximateCount()), n / 2, n / 2 * 0.05);
  // Removing everything empties the filter.
  for (int i = 1; i < n; i += 2) ASSERT_TRUE(f.Remove(Key(i)));
  EXPECT_EQ(f.num_items(), 0u);
  EXPECT_EQ(f.ApproximateCount(), 0u);
  EXPECT_EQ(f.EstimatedFpRate(), 0.0);
}

TEST(CountingFilterTest, EstimatedFpRateMatchesMeasured) {
  const int n = 50'000, probes = 400'000;
  CountingFilter f = Make(n, 0.01, 2);
  for (int i = 0; i < n; ++i) f.Add(Key(i));
  const auto [measured, expected, sigma] =
      testing::MeasureFpRate(f, probes, "absent-");
  std::printf("counting filter at capacity: measured %.4f%%, expected %.4f%%\n",
              100 * measured, 100 * expected);
  EXPECT_LE(std::abs(measured - expected), 3 * sigma);
  EXPECT_LT(expected, 0.0105);
}

TEST(CountingFilterTest, AddTwiceNeedsTwoRemoves) {
  CountingFilter f = Make(1000, 0.01, 3);
  EXPECT_TRUE(f.Add("dup"));
  EXPECT_FALSE(f.Add("dup"));  // already present
  EXPECT_EQ(f.CountUpperBound("dup"), 2);
  EXPECT_TRUE(f.Remove("dup"));
  EXPECT_TRUE(f.MayContain("dup"));
  EXPECT_TRUE(f.Remove("dup"));
  EXPECT_FALSE(f.MayContain("dup"));
  EXPECT_EQ(f.CountUpperBound("dup"), 0);
}

TEST(CountingFilterTest, RemovingAnAbsentKeyChangesNothing) {
  CountingFilter f = Make(1000, 0.01, 4);
  for (int i = 0; i < 500; ++i) f.Add(Key(i));
  std::string before;
  ASSERT_TRUE(f.AppendMembershipFilter(&before).ok());
  int refused = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::string absent = absl::StrCat("never-", i);
    if (!f.MayContain(absent)) refused += !f.Remove(absent);
  }
  EXPECT_GT(refused, 900);
  EXPECT_EQ(f.num_items(), 500u);
  std::string after;
  ASSERT_TRUE(f.AppendMembershipFilter(&after).ok());
  EXPECT_EQ(after, before);
}

// The documented risk: removing a false positive (a key never added that the
// filter answers "may contain" for) decrements counters of added keys, and
// can make some of them answer "absent".
TEST(CountingFilterTest, RiskRemovingANeverAddedKeyCreatesFalseNegatives) {
  // A small, full filter so that false positives are easy to find.
  absl::StatusOr<CountingFilter> made =
      CountingFilter::CreateWithShape({4, 3, 8}, [] {
        CountingFilterOptions o;
        o.seed = 5;
        return o;
      }());
  ASSERT_TRUE(made.ok());
  CountingFilter& f = *made;
  const int n = 100;
  for (int i = 0; i < n; ++i) f.Add(Key(i));
  int false_negatives = 0;
  for (int j = 0; j < 100'000 && false_negatives == 0; ++j) {
    const std::string stranger = absl::StrCat("stranger-", j);
    if (!f.MayContain(stranger)) continue;  // refused anyway: harmless
    ASSERT_TRUE(f.Remove(stranger));        // a false positive: "removed"
    for (int i = 0; i < n; ++i) false_negatives += !f.MayContain(Key(i));
  }
  EXPECT_GT(false_negatives, 0)
      << "removing false positives should have cost some added key";
}

// The other documented risk: a saturated counter never goes down, so a key
// added more than kMaxCount times can never be removed (it stays as a false
// positive), and keys sharing its counters are never lost.
TEST(CountingFilterTest, RiskSaturatedCountersNeverDecrement) {
  CountingFilter f = Make(1000, 0.01, 6);
  EXPECT_EQ(f.SaturatedCounters(), 0u);
  for (int i = 0; i < 20; ++i) f.Add("hot");
  EXPECT_EQ(f.CountUpperBound("hot"), CountingFilter::kMaxCount);
  EXPECT_EQ(f.SaturatedCounters(), static_cast<uint64_t>(f.shape().num_probes));
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(f.Remove("hot"));
  EXPECT_TRUE(f.MayContain("hot"));  // stuck: saturated counters stay
  EXPECT_EQ(f.CountUpperBound("hot"), CountingFilter::kMaxCount);
  EXPECT_EQ(f.SaturatedCounters(), static_cast<uint64_t>(f.shape().num_probes));
  // Below saturation counts are exact: 14 adds need 14 removes.
  for (int i = 0; i < 14; ++i) f.Add("warm");
  for (int i = 0; i < 13; ++i) f.Remove("warm");
  EXPECT_TRUE(f.MayContain("warm"));
  f.Remove("warm");
  EXPECT_FALSE(f.MayContain("warm"));
}

TEST(CountingFilterTest, PositionsAreThoseOfAnEightBitLaneFilter) {
  // The non-zero counters form exactly the w = 8 blockbloom filter of the
  // same keys: the export equals what FilterBuilder/BloomFilter build with
  // that shape, and OpenFilter reads it back answering like MayContain.
  CountingFilter f = Make(3000, 0.01, 7);
  std::vector<std::string> keys;
  for (int i = 0; i < 3000; ++i) keys.push_back(Key(i));
  for (const std::string& k : keys) f.Add(k);
  for (int i = 0; i < 3000; i += 3) f.Remove(keys[i]);

  BloomFilterOptions options;
  options.seed = 7;
  absl::StatusOr<BloomFilter> bits =
      BloomFilter::CreateWithShape(f.shape(), options);
  ASSERT_TRUE(bits.ok());
  for (int i = 0; i < 3000; ++i) {
    if (i % 3 != 0) bits->Add(keys[i]);
  }
  std::string exported;
  ASSERT_TRUE(f.AppendMembershipFilter(&exported).ok());
  absl::StatusOr<Filter> read = OpenFilter(AsBytes(exported));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->shape(), f.shape());
  // Removed keys' counters went back to what the others left: identical.
  EXPECT_THAT(read->bits(), ::testing::ElementsAreArray(bits->bits()));
  for (int i = 0; i < 20'000; ++i) {
    const std::string probe = absl::StrCat("p", i);
    ASSERT_EQ(read->MayContain(probe), f.MayContain(probe));
  }
}

TEST(CountingFilterTest, ClearAndRandomSeed) {
  CountingFilter f = Make(100, 0.01, 8);
  f.Add("a");
  f.Clear();
  EXPECT_FALSE(f.MayContain("a"));
  EXPECT_EQ(f.num_items(), 0u);
  absl::StatusOr<CountingFilter> a = CountingFilter::Create(100, 0.01);
  absl::StatusOr<CountingFilter> b = CountingFilter::Create(100, 0.01);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->seed(), b->seed());
  EXPECT_EQ(a->size_bytes(), a->shape().num_blocks * 64);
}

}  // namespace
}  // namespace blockbloom
