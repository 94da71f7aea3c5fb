// The distinct-key estimate of `blockbloom info` (tools/fill_estimate.h):
// exact inversion of the expected fill, and real filters' estimates within a
// few standard errors of the truth, with standard errors that match the
// spread seen over many filters.
#include "tools/fill_estimate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/filter.h"
#include "blockbloom/sizing.h"

namespace blockbloom::cli {
namespace {

Filter Build(uint64_t num_keys, double bits_per_key, uint64_t seed,
             int copies = 1) {
  FilterOptions options;
  options.bits_per_key = bits_per_key;
  options.seed = seed;
  auto builder = FilterBuilder::Create(options);
  EXPECT_TRUE(builder.ok());
  // Copies are added in separate passes, so they are never adjacent and the
  // builder counts each: the estimate must still say num_keys.
  for (int c = 0; c < copies; ++c) {
    for (uint64_t i = 0; i < num_keys; ++i) builder->Add(absl::StrCat("k", i));
  }
  auto filter = builder->Finish();
  EXPECT_TRUE(filter.ok());
  return *std::move(filter);
}

TEST(FillEstimateTest, CountsSetBits) {
  const std::vector<uint8_t> bits = {0xff, 0x01, 0, 0x80, 1, 2, 3, 4, 5, 0xff};
  const FillStats stats = CountSetBits(bits);
  EXPECT_EQ(stats.total_bits, 80u);
  EXPECT_EQ(stats.set_bits, 8u + 1 + 1 + 1 + 1 + 2 + 1 + 2 + 8);
  EXPECT_DOUBLE_EQ(stats.fill_ratio(), 25.0 / 80);
}

TEST(FillEstimateTest, InvertsTheExpectedFill) {
  for (const FilterShape shape :
       {FilterShape{1000, 6, 32}, FilterShape{1, 7, 24}, FilterShape{3, 16, 5},
        FilterShape{uint64_t{1} << 32, 6, 32}}) {
    const double bits =
        static_cast<double>(shape.num_blocks) * 16 * shape.lane_bits;
    for (double fill : {1e-6, 0.01, 0.3, 0.5, 0.9, 0.999}) {
      const double set = std::round(fill * bits);
      if (set < 1) continue;
      const KeyEstimate estimate =
          EstimateDistinctKeys(shape, static_cast<uint64_t>(set));
      EXPECT_NEAR(ExpectedFillRatio(shape, estimate.keys), set / bits,
                  1e-12 * std::max(1.0, set / bits))
          << shape.num_blocks << " blocks, fill " << fill;
      // One key sets exactly k bits, so the error vanishes as n -> 1.
      EXPECT_GE(estimate.std_error, 0);
      if (estimate.keys >= 2) {
        EXPECT_GT(estimate.std_error, 0);
      }
    }
  }
}

TEST(FillEstimateTest, EmptyAndSaturated) {
  const FilterShape shape{2, 6, 32};
  const KeyEstimate empty = EstimateDistinctKeys(shape, 0);
  EXPECT_EQ(empty.keys, 0);
  EXPECT_EQ(empty.std_error, 0);
  EXPECT_FALSE(empty.saturated());
  const KeyEstimate full = EstimateDistinctKeys(shape, 2 * 16 * 32);
  EXPECT_TRUE(full.saturated());
  EXPECT_TRUE(std::isinf(full.std_error));

  // The library's empty filter: one block of 1-bit lanes, nothing set.
  const Filter filter = Build(0, 10, 0);
  EXPECT_EQ(CountSetBits(filter.bits()).set_bits, 0u);
}

// Real filters (real hash, real layout) across sizes, bits per key and lane
// widths: the estimate is within 4 standard errors of the number of keys.
TEST(FillEstimateTest, EstimatesRealFilters) {
  struct Case {
    uint64_t keys;
    double bits_per_key;
  };
  for (const Case c : {Case{10, 10}, Case{37, 10}, Case{140, 10}, Case{1000, 4},
                       Case{20000, 10}, Case{20000, 20}, Case{200000, 6},
                       Case{100000, 14.5}}) {
    for (uint64_t seed : {0, 1, 2}) {
      const Filter filter = Build(c.keys, c.bits_per_key, seed);
      const KeyEstimate estimate = EstimateDistinctKeys(
          filter.shape(), CountSetBits(filter.bits()).set_bits);
      EXPECT_NEAR(estimate.keys, static_cast<double>(c.keys),
                  4 * estimate.std_error)
          << c.keys << " keys at " << c.bits_per_key << " bits/key, seed "
          << seed << ", lanes of " << filter.lane_bits() << " bits";
      // Precise where it matters: under 1% for large filters.
      if (c.keys >= 20000) {
        EXPECT_LT(estimate.std_error, 0.01 * static_cast<double>(c.keys));
      }
    }
  }
}

// Non-adjacent duplicates are counted by the builder (num_keys) but set no
// new bits: the estimate counts distinct keys.
TEST(FillEstimateTest, CountsDistinctKeysNotAdditions) {
  const Filter filter = Build(5000, 10, 7, /*copies=*/3);
  EXPECT_EQ(filter.num_keys(), 15000u);
  const KeyEstimate estimate = EstimateDistinctKeys(
      filter.shape(), CountSetBits(filter.bits()).set_bits);
  // Sized for 15000 keys, holding 5000 distinct ones.
  EXPECT_NEAR(estimate.keys, 5000, 4 * estimate.std_error);
}

// The standard error is honest: over many filters, the spread of the
// estimates matches it (within the sampling error of 300 samples, ~4%, and
// the delta method's approximation).
TEST(FillEstimateTest, StandardErrorMatchesTheSpread) {
  constexpr int kFilters = 300;
  constexpr uint64_t kKeys = 3000;
  double sum = 0, sum_sq = 0, se_sum = 0;
  for (int seed = 0; seed < kFilters; ++seed) {
    const Filter filter = Build(kKeys, 10, 1000 + seed);
    const KeyEstimate estimate = EstimateDistinctKeys(
        filter.shape(), CountSetBits(filter.bits()).set_bits);
    sum += estimate.keys;
    sum_sq += estimate.keys * estimate.keys;
    se_sum += estimate.std_error;
  }
  const double mean = sum / kFilters;
  const double sd =
      std::sqrt((sum_sq - kFilters * mean * mean) / (kFilters - 1));
  const double se = se_sum / kFilters;
  EXPECT_NEAR(mean, kKeys, 4 * sd / std::sqrt(kFilters));  // unbiased
  EXPECT_NEAR(sd / se, 1.0, 0.2) << "spread " << sd << ", std error " << se;
}

}  // namespace
}  // namespace blockbloom::cli
