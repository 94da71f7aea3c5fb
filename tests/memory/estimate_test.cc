// The estimators read from the bits: ApproximateCount within 5% at fills
// from 10% to 90% of capacity (the bar; measured much tighter), and
// EstimatedFpRate within 3 sigma of the rate measured with absent keys. Prints
// the figures it checks.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/bloom_filter.h"
#include "blockbloom/hash.h"
#include "gtest/gtest.h"
#include "src/core/layout.h"
#include "src/memory/fill_stats.h"
#include "tests/memory/memory_test_util.h"

namespace blockbloom {
namespace {

BloomFilter Make(uint64_t capacity, double fp_rate, uint64_t seed) {
  BloomFilterOptions options;
  options.seed = seed;
  return testing::Created(BloomFilter::Create(capacity, fp_rate, options));
}

// Adds keys "key-<first>" .. "key-<last-1>".
void AddRange(BloomFilter& f, uint64_t first, uint64_t last) {
  for (uint64_t i = first; i < last; ++i) f.Add(absl::StrCat("key-", i));
}

TEST(EstimateTest, CountWithinFivePercentFromTenToNinetyPercentFill) {
  for (uint64_t capacity : {1'000u, 100'000u, 1'000'000u}) {
    for (double fp_rate : {0.01, 0.001}) {
      BloomFilter f = Make(capacity, fp_rate, capacity + 1);
      uint64_t added = 0;
      std::printf("capacity %llu, fp_rate %g (%llu blocks, k = %d):",
                  static_cast<unsigned long long>(capacity), fp_rate,
                  static_cast<unsigned long long>(f.num_blocks()),
                  f.num_probes());
      for (int percent : {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 150}) {
        const uint64_t n = capacity * percent / 100;
        AddRange(f, added, n);
        added = n;
        const double estimate = static_cast<double>(f.ApproximateCount());
        const double error = estimate / static_cast<double>(n) - 1;
        std::printf(" %d%%: %+.2f%%", percent, 100 * error);
        if (percent <= 90) {
          EXPECT_LT(std::abs(error), 0.05)
              << "capacity " << capacity << " fill " << percent << "%";
        }
        // Well past the bar for filters of more than a few blocks.
        if (capacity >= 100'000) {
          EXPECT_LT(std::abs(error), 0.01);
        }
      }
      std::printf("\n");
    }
  }
}

TEST(EstimateTest, EstimatedFpRateWithinThreeSigmaOfMeasured) {
  const uint64_t capacity = 100'000;
  const int probes = 400'000;
  for (double fp_rate : {0.01, 0.05}) {
    BloomFilter f = Make(capacity, fp_rate, 17);
    uint64_t added = 0;
    for (int percent : {25, 50, 100, 150, 300}) {
      const uint64_t n = capacity * percent / 100;
      AddRange(f, added, n);
      added = n;
      const auto [measured, expected, sigma] =
          testing::MeasureFpRate(f, probes, "absent-");
      const double model =
          *EstimatedFpRate(f.shape(), n);  // over all filters of n keys
      std::printf(
          "fp_rate %g, fill %d%%: measured %.5f%%, EstimatedFpRate %.5f%% "
          "(%+.2f sigma), model at n %.5f%%\n",
          fp_rate, percent, 100 * measured, 100 * expected,
          (measured - expected) / sigma, 100 * model);
      EXPECT_LE(std::abs(measured - expected), 3 * sigma + 1.0 / probes)
          << "fill " << percent << "%";
    }
  }
}

// FpRateAccumulator against a direct sum over the 240 lane sets of each
// block, on bits of every density (to float precision: the accumulator
// multiplies in float, 1e-6 relative per product of 16).
TEST(EstimateTest, FpRateAccumulatorIsTheDirectSum) {
  std::mt19937_64 rng(3);
  for (int k : {1, 4, 6, 9, 16}) {
    for (uint32_t w : {32u, 8u, 3u, 100u, 512u}) {
      internal::FpRateAccumulator acc(k, static_cast<int>(w));
      double direct = 0;
      const int blocks = 37;  // not a multiple of the group of 16
      for (int b = 0; b < blocks; ++b) {
        uint16_t fill[internal::kLanes];
        for (int lane = 0; lane < internal::kLanes; ++lane) {
          fill[lane] = static_cast<uint16_t>(rng() % (w + 1));
        }
        acc.AddBlock(fill);
        const uint16_t* sets = internal::LaneSetsFor(k);
        double block = 0;
        for (int sel = 0; sel < internal::kLaneSets; ++sel) {
          double p = 1;
          for (int lane = 0; lane < internal::kLanes; ++lane) {
            if ((sets[sel] >> lane) & 1) p *= fill[lane] / double(w);
          }
          block += p;
        }
        direct += block / internal::kLaneSets;
      }
      EXPECT_NEAR(acc.Result(), direct / blocks, 1e-5 * direct / blocks + 1e-12)
          << "k " << k << " w " << w;
    }
  }
}

TEST(EstimateTest, EstimateKeysInvertsTheMean) {
  // E[set bits] = M (1 - (1 - k/M)^n): the estimate of the mean is n.
  const uint64_t m = 512 * 1000;
  for (int k : {3, 6, 11}) {
    for (double n : {1.0, 1000.0, 50'000.0, 200'000.0}) {
      const double mean = m * (1 - std::pow(1 - double(k) / m, n));
      EXPECT_NEAR(internal::EstimateKeys(
                      static_cast<uint64_t>(std::llround(mean)), m, k),
                  n, 1e-3 * n + 0.5);
    }
  }
  EXPECT_EQ(internal::EstimateKeys(0, m, 6), 0);
  // Saturated: finite, and larger than any unsaturated count.
  EXPECT_TRUE(std::isfinite(internal::EstimateKeys(m, m, 6)));
  EXPECT_GT(internal::EstimateKeys(m, m, 6),
            internal::EstimateKeys(m - 100, m, 6));
}

}  // namespace
}  // namespace blockbloom
