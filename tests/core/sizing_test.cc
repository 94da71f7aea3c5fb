// The sizing math: degenerate inputs, the optimal k, minimality of the
// shapes, and the estimate against a direct simulation of the layout.
#include "blockbloom/sizing.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/core/layout.h"

namespace blockbloom {
namespace {

using ::testing::HasSubstr;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(SizingTest, DegenerateInputsGiveStatus) {
  EXPECT_THAT(ShapeForBitsPerKey(0, 10).status().message(),
              HasSubstr("num_keys"));
  for (double bpk : {0.0, -1.0, kNaN, kInf}) {
    EXPECT_EQ(ShapeForBitsPerKey(100, bpk).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bpk;
  }
  EXPECT_THAT(ShapeForFpRate(0, 0.01).status().message(),
              HasSubstr("num_keys"));
  for (double p : {0.0, 1.0, -0.5, 2.0, kNaN, kInf}) {
    EXPECT_EQ(ShapeForFpRate(100, p).status().code(),
              absl::StatusCode::kInvalidArgument)
        << p;
  }
  EXPECT_FALSE(OptimalNumProbes(10, 0).ok());
  EXPECT_FALSE(OptimalNumProbes(10, (uint64_t{1} << 32) + 1).ok());
  EXPECT_FALSE(EstimatedFpRate({0, 6}, 10).ok());
  EXPECT_FALSE(EstimatedFpRate({10, 0}, 10).ok());
  EXPECT_FALSE(EstimatedFpRate({10, 17}, 10).ok());
}

TEST(SizingTest, SizesThatOverflowGiveOutOfRange) {
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(ShapeForBitsPerKey(max, 10).status().code(),
            absl::StatusCode::kOutOfRange);
  EXPECT_EQ(ShapeForBitsPerKey(1'000'000, 1e300).status().code(),
            absl::StatusCode::kOutOfRange);
  EXPECT_EQ(ShapeForFpRate(max, 0.01).status().code(),
            absl::StatusCode::kOutOfRange);
  EXPECT_EQ(ShapeForFpRate(uint64_t{1} << 40, 1e-9).status().code(),
            absl::StatusCode::kOutOfRange);
  // The largest filter is fine.
  absl::StatusOr<FilterShape> largest =
      ShapeForBitsPerKey(uint64_t{1} << 32, 512);
  ASSERT_TRUE(largest.ok()) << largest.status();
  EXPECT_EQ(largest->num_blocks, uint64_t{1} << 32);
  EXPECT_EQ(largest->size_bytes(), uint64_t{1} << 38);
}

TEST(SizingTest, BitsPerKeyRoundsUpToWholeBlocks) {
  EXPECT_EQ(ShapeForBitsPerKey(1, 10)->num_blocks, 1u);
  EXPECT_EQ(ShapeForBitsPerKey(1'000'000, 10)->num_blocks, 19532u);
  EXPECT_EQ(ShapeForBitsPerKey(1'000'000, 9.5)->num_blocks, 18555u);
  EXPECT_EQ(ShapeForBitsPerKey(1'000'000, 9.5)->lane_bits, 32);
  EXPECT_EQ(ShapeForBitsPerKey(512, 1, false)->num_blocks, 1u);
  EXPECT_EQ(ShapeForBitsPerKey(513, 1, false)->num_blocks, 2u);
}

TEST(SizingTest, OptimalKForThisLayout) {
  // Blocked filters want fewer probes than the textbook k = ln2 * bits/key,
  // because overloaded blocks dominate the rate.
  const std::vector<std::pair<double, int>> want = {{6, 4},  {8, 5},  {10, 6},
                                                    {12, 7}, {16, 9}, {20, 11}};
  for (const auto& [bpk, k] : want) {
    EXPECT_EQ(ShapeForBitsPerKey(1'000'000, bpk)->num_probes, k) << bpk;
  }
  // k is capped at 16 distinct lanes.
  EXPECT_EQ(ShapeForBitsPerKey(1000, 100)->num_probes, 16);
}

TEST(SizingTest, OptimalKIsTheMinimum) {
  for (uint64_t blocks : {uint64_t{1}, uint64_t{100}, uint64_t{19532}}) {
    for (uint64_t n : {uint64_t{10}, uint64_t{1000}, uint64_t{1'000'000}}) {
      const int best = *OptimalNumProbes(n, blocks);
      const double best_rate = *EstimatedFpRate({blocks, best}, n);
      for (int k = 1; k <= 16; ++k) {
        EXPECT_GE(*EstimatedFpRate({blocks, k}, n), best_rate)
            << "blocks " << blocks << " n " << n << " k " << k;
      }
    }
  }
}

TEST(SizingTest, FpRateShapeIsTheSmallestThatMeetsTheTarget) {
  for (double target : {0.1, 0.01, 0.001, 1e-4, 1e-6}) {
    for (uint64_t n : {uint64_t{1}, uint64_t{37}, uint64_t{100'000}}) {
      absl::StatusOr<FilterShape> shape = ShapeForFpRate(n, target);
      ASSERT_TRUE(shape.ok()) << shape.status();
      EXPECT_LE(*EstimatedFpRate(*shape, n), target);
      if (shape->num_blocks > 1) {
        const FilterShape smaller = {
            shape->num_blocks - 1, *OptimalNumProbes(n, shape->num_blocks - 1)};
        EXPECT_GT(*EstimatedFpRate(smaller, n), target)
            << "target " << target << " n " << n;
      }
    }
  }
  // About 10 bits/key for 1%, as a one-line Bloom filter needs.
  const FilterShape one_percent = *ShapeForFpRate(1'000'000, 0.01);
  EXPECT_NEAR(one_percent.num_blocks * 512.0 / 1e6, 9.98, 0.1);
}

TEST(SizingTest, EstimateBehavesAtTheEdges) {
  EXPECT_EQ(*EstimatedFpRate({10, 6}, 0), 0.0);
  // A full filter answers "maybe" to everything.
  EXPECT_NEAR(*EstimatedFpRate({1, 6}, 100'000), 1.0, 1e-9);
  // One other key in one block: with k = 1 it shares the probe's lane with
  // probability 1/16 and then its bit with probability 1/32.
  EXPECT_NEAR(*EstimatedFpRate({1, 1}, 1), 1.0 / 512, 1e-15);
  for (int k = 1; k <= 16; ++k) {
    // At most (1/32)^k: all k bits must match.
    const double rate = *EstimatedFpRate({1, k}, 1);
    EXPECT_GT(rate, 0) << k;
    EXPECT_LE(rate, std::pow(1.0 / 32, k) * (1 + 1e-9)) << k;
  }
  // Tiny rates stay positive, ordered and sensible: sparse filters want k=16.
  EXPECT_EQ(*OptimalNumProbes(1000, 1'000'000), 16);
  const double tiny = *EstimatedFpRate({1'000'000, 16}, 1000);
  EXPECT_GT(tiny, 0);
  EXPECT_LT(tiny, 1e-20);
  // More blocks, lower rate; more keys, higher rate.
  EXPECT_LT(*EstimatedFpRate({2000, 6}, 1000),
            *EstimatedFpRate({1000, 6}, 1000));
  EXPECT_GT(*EstimatedFpRate({1000, 6}, 2000),
            *EstimatedFpRate({1000, 6}, 1000));
}

// The estimate against a simulation of the layout with ideal random hashes
// (std::mt19937_64): tests the math without the real hash function. The
// estimate is an expectation over filters, so small filters, whose rate
// varies a lot from one to the next, are rebuilt for every few probes.
TEST(SizingTest, EstimateMatchesIdealSimulation) {
  struct Case {
    uint64_t blocks, keys;
    int k, lane_bits;
    int filters, probes_per_filter;
  };
  for (const Case& c : {
           Case{1, 40, 6, 32, 40'000, 50},
           Case{1, 8, 16, 32, 40'000, 50},
           Case{3, 200, 3, 32, 20'000, 100},
           Case{1, 37, 6, 24, 40'000, 50},    // LevelDB: 37 keys, 48 bytes
           Case{3, 140, 7, 30, 20'000, 100},  // 3 blocks of 30-bit lanes
           Case{1, 140, 7, 88, 20'000, 100},  // 140 keys, one 176-byte block
           Case{1, 800, 9, 512, 4'000, 500},  // the largest single block
           Case{2, 5, 2, 1, 40'000, 50},      // 1-bit lanes
           Case{2000, 100'000, 6, 32, 1, 2'000'000},
           Case{1000, 30'000, 11, 32, 1, 2'000'000},
       }) {
    std::mt19937_64 rng(c.blocks * 1000 + c.k);
    std::vector<uint8_t> bits(c.blocks * 2 * c.lane_bits);
    const internal::FilterRef ref = {bits.data(), c.blocks,
                                     internal::LaneSetsFor(c.k), 0,
                                     static_cast<uint32_t>(c.lane_bits)};
    int64_t positives = 0;
    for (int f = 0; f < c.filters; ++f) {
      std::fill(bits.begin(), bits.end(), 0);
      for (uint64_t i = 0; i < c.keys; ++i) {
        internal::ReferenceInsert(ref, bits.data(), rng());
      }
      for (int i = 0; i < c.probes_per_filter; ++i) {
        positives += internal::ReferenceMayContain(ref, rng());
      }
    }
    const double probes = double{1} * c.filters * c.probes_per_filter;
    const double p = *EstimatedFpRate({c.blocks, c.k, c.lane_bits}, c.keys);
    const double measured = positives / probes;
    // 4 sigma of the probes, widened for the filter-to-filter variation.
    EXPECT_NEAR(measured, p, 4 * std::sqrt(p / probes) + 0.02 * p)
        << c.blocks << " blocks of " << c.lane_bits << "-bit lanes, " << c.keys
        << " keys, k " << c.k;
  }
}

TEST(SizingTest, SmallFiltersGetNarrowLanesInsteadOfRounding) {
  // 37 keys at 10 bits/key: 370 bits -> one block of 24-bit lanes (384 bits,
  // 48 bytes), not a 64-byte block.
  FilterShape s = *ShapeForBitsPerKey(37, 10);
  EXPECT_EQ(s.num_blocks, 1u);
  EXPECT_EQ(s.lane_bits, 24);
  EXPECT_EQ(s.size_bytes(), 48u);
  // 140 keys: 1400 bits -> one block of 88-bit lanes (1408 bits), not three
  // unevenly loaded 64-byte blocks.
  s = *ShapeForBitsPerKey(140, 10);
  EXPECT_EQ(s.num_blocks, 1u);
  EXPECT_EQ(s.lane_bits, 88);
  EXPECT_EQ(s.size_bytes(), 176u);
  EXPECT_LT(*EstimatedFpRate(s, 140),
            *EstimatedFpRate({3, s.num_probes, 30}, 140));
  // Rounding is at most 16 bits per block below 16 blocks.
  for (uint64_t n = 1; n * 10 <= 8192; n += 7) {  // up to 1 KiB
    const FilterShape t = *ShapeForBitsPerKey(n, 10);
    EXPECT_GE(t.size_bytes() * 8, n * 10);
    EXPECT_LT(t.size_bytes() * 8, n * 10 + 16 * t.num_blocks + 16) << n;
  }
  // Beyond 1 KiB, and when not allowed, lanes are 32 bits.
  EXPECT_EQ(ShapeForBitsPerKey(819, 10)->num_blocks, 1u);
  EXPECT_EQ(ShapeForBitsPerKey(820, 10)->lane_bits, 32);
  EXPECT_EQ(ShapeForBitsPerKey(820, 10)->num_blocks, 17u);
  EXPECT_EQ(ShapeForBitsPerKey(37, 10, /*allow_narrow_lanes=*/false)->lane_bits,
            32);
  EXPECT_EQ(ShapeForBitsPerKey(37, 10, false)->size_bytes(), 64u);
  // And by target rate: the narrow shape meets it, in fewer bytes.
  const FilterShape by_rate = *ShapeForFpRate(37, 0.01);
  EXPECT_LE(*EstimatedFpRate(by_rate, 37), 0.01);
  EXPECT_LT(by_rate.size_bytes(), 64u);
  EXPECT_LE(*EstimatedFpRate(*ShapeForFpRate(37, 0.01, false), 37), 0.01);
}

TEST(SizingTest, LaneBitsOutOfRangeAreRejected) {
  EXPECT_FALSE(ValidateShape({1, 6, 0}).ok());
  EXPECT_FALSE(ValidateShape({1, 6, 513}).ok());
  EXPECT_TRUE(ValidateShape({1, 6, 512}).ok());
  EXPECT_TRUE(ValidateShape({1, 6, 1}).ok());
  EXPECT_FALSE(OptimalNumProbes(10, 1, 0).ok());
  EXPECT_FALSE(EstimatedFpRate({1, 6, 600}, 10).ok());
}

}  // namespace
}  // namespace blockbloom
