// Hot ranges (src/levels/range_heat.h): the sampled probes' keys are
// counted by key range and column family group, and the change of a table's
// bits/key follows its range's probes per key: none under probes spread as
// the keys are or hot only for a while, more bits for hot tables and fewer
// for cold ones under lasting skew, and the level's memory kept (changes
// averaging 0 over its keys).
#include "src/levels/range_heat.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace blockbloom::internal {
namespace {

std::string Key(uint64_t i) { return absl::StrFormat("key%09u", i); }

// A level of `tables` tables of `keys_per_table` consecutive keys each.
struct Level {
  int tables;
  uint64_t keys_per_table;
  std::string Low(int t) const { return Key(t * keys_per_table); }
  std::string High(int t) const { return Key((t + 1) * keys_per_table - 1); }
};

// Blocked kind's slope near 10 bits/key (range_heat.h).
constexpr double kSlope = 0.42;

// Every table of `level` asks for its change, in `rounds` passes (a level
// rewritten again and again); returns the last pass's changes.
std::vector<double> Deltas(RangeHeat& heat, const Level& level, int rounds) {
  std::vector<double> out(level.tables);
  const uint64_t level_keys = level.tables * level.keys_per_table;
  for (int r = 0; r < rounds; ++r) {
    for (int t = 0; t < level.tables; ++t) {
      out[t] = heat.Delta(0, 3, level.keys_per_table, level_keys, level.Low(t),
                          level.High(t), kSlope);
    }
  }
  return out;
}

// The mean |change| of the tables of `level` after three passes.
double MeanAbsDelta(RangeHeat& heat, const Level& level) {
  double sum = 0;
  for (double x : Deltas(heat, level, 3)) sum += std::abs(x);
  return sum / level.tables;
}

TEST(RangeHeatTest, CountsSamplesByRangeAndGroup) {
  RangeHeat heat;
  for (int i = 0; i < 100; ++i) heat.Record(0, Key(i));
  for (int i = 0; i < 50; ++i) heat.Record(1, Key(i));
  uint64_t in = 0, total = 0;
  heat.Count(0, Key(10), Key(19), &in, &total);
  EXPECT_EQ(in, 10u);
  EXPECT_EQ(total, 100u);
  heat.Count(1, Key(10), Key(19), &in, &total);
  EXPECT_EQ(in, 10u);
  EXPECT_EQ(total, 50u);
  heat.Count(2, Key(0), Key(99), &in, &total);
  EXPECT_EQ(total, 0u);
  // Keys longer than the prefix kept: a range counts a superset, never
  // fewer (a change of bits only, never an unreadable table).
  const std::string common(RangeHeat::kKeyBytes, 'p');
  heat.Record(3, common + "b");
  heat.Count(3, common + "c", common + "d", &in, &total);
  EXPECT_EQ(in, 1u);
}

TEST(RangeHeatTest, KeepsTheMostRecentSamples) {
  RangeHeat heat;
  const int capacity = RangeHeat::kShards * RangeHeat::kSamplesPerShard;
  // One thread fills every ring: it keeps its last `capacity` samples.
  for (int i = 0; i < 2 * capacity; ++i) heat.Record(0, Key(i));
  uint64_t in = 0, total = 0;
  heat.Count(0, Key(0), Key(2 * capacity), &in, &total);
  EXPECT_EQ(total, static_cast<uint64_t>(capacity));
  heat.Count(0, Key(capacity), Key(2 * capacity - 1), &in, &total);
  EXPECT_EQ(in, total);
}

TEST(RangeHeatTest, NoChangeBeforeEnoughSamples) {
  RangeHeat heat;
  for (int i = 0; i < RangeHeat::kMinSamples - 1; ++i) heat.Record(0, Key(0));
  EXPECT_EQ(heat.Delta(0, 1, 100, 1000, Key(0), Key(99), kSlope), 0);
}

TEST(RangeHeatTest, UniformProbesChangeNothing) {
  RangeHeat heat;
  const Level level{200, 1000};
  std::mt19937_64 rng(1);
  for (int i = 0; i < 2048; ++i) {
    heat.Record(0, Key(rng() % (level.tables * level.keys_per_table)));
  }
  // The spread of the counts (~10 per table) is their noise: shrunk away.
  EXPECT_LT(MeanAbsDelta(heat, level), 0.25);
  EXPECT_LT(heat.Heat(0, 3).beta, 0.3);
}

TEST(RangeHeatTest, HotTablesGetMoreBitsForTheSameMemory) {
  RangeHeat heat;
  const Level level{200, 1000};
  // Zipf(1) over the tables, scattered: table (17 * rank) % 200 has
  // weight 1 / (rank + 1).
  std::vector<double> weight(level.tables);
  double sum = 0;
  for (int rank = 0; rank < level.tables; ++rank) {
    weight[(17 * rank) % level.tables] = 1.0 / (rank + 1);
    sum += 1.0 / (rank + 1);
  }
  std::discrete_distribution<int> table_of(weight.begin(), weight.end());
  std::mt19937_64 rng(2);
  for (int i = 0; i < 2048; ++i) {
    const int t = table_of(rng);
    heat.Record(0, Key(t * level.keys_per_table + rng() % 1000));
  }
  const std::vector<double> d = Deltas(heat, level, 3);
  // The hottest table (rank 0: table 0) gets the most bits, up to the cap;
  // the coldest ones fewer.
  EXPECT_GT(d[0], 3);
  EXPECT_LE(d[0], RangeHeat::kMaxRaise);
  EXPECT_LT(d[(17 * 199) % level.tables], -0.5);
  EXPECT_GE(d[(17 * 199) % level.tables], -RangeHeat::kMaxCut);
  EXPECT_GT(heat.Heat(0, 3).beta, 0.5);
  // The level's memory: changes average about 0 over its keys.
  double mean = 0;
  for (double x : d) mean += x / level.tables;
  EXPECT_LT(std::abs(mean), 0.3);
  // And the expected false reads (rate ~ exp(-slope * bits)) are lower.
  double flat = 0, hot = 0;
  for (int t = 0; t < level.tables; ++t) {
    flat += weight[t] / sum;
    hot += weight[t] / sum * std::exp(-kSlope * d[t]);
  }
  EXPECT_LT(hot, 0.8 * flat);
}

TEST(RangeHeatTest, RangesHotOnlyForAWhileChangeNothing) {
  // Range-local lookups: batches at random places. The ranges hot in the
  // older samples are not the ones hot in the newer: the past does not
  // predict the next probes, so no table is planned on it.
  // As level_tree_bench's: batches within 0.2% of the key space, each
  // over 2-3 tables.
  RangeHeat heat;
  const Level level{1000, 200};
  std::mt19937_64 rng(3);
  const int capacity = RangeHeat::kShards * RangeHeat::kSamplesPerShard;
  for (int batch = 0; batch < capacity / 256; ++batch) {
    const uint64_t center = rng() % (level.tables * level.keys_per_table);
    for (int i = 0; i < 256; ++i) heat.Record(0, Key(center + rng() % 400));
  }
  EXPECT_LT(MeanAbsDelta(heat, level), 0.3);
  EXPECT_LT(heat.Heat(0, 3).beta, 0.3);
}

TEST(RangeHeatTest, LevelsAndGroupsKeepStatisticsApart) {
  RangeHeat heat;
  for (int i = 0; i < 4 * RangeHeat::kMinSamples; ++i) heat.Record(0, Key(i));
  heat.Delta(0, 2, 1000, 4000, Key(0), Key(999), kSlope);
  EXPECT_EQ(heat.Heat(0, 2).tables, 1u);
  EXPECT_EQ(heat.Heat(0, 3).tables, 0u);
  EXPECT_EQ(heat.Heat(1, 2).tables, 0u);
}

}  // namespace
}  // namespace blockbloom::internal
