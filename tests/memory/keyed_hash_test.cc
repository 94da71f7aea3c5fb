// Keyed hashing: keys crafted against seed 0 (the public, unkeyed hash) to
// collide do not collide under another seed, which is why in-memory filters
// take a random secret seed by default.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/bloom_filter.h"
#include "blockbloom/counting_filter.h"
#include "blockbloom/hash.h"
#include "gtest/gtest.h"
#include "src/core/layout.h"
#include "tests/memory/memory_test_util.h"

namespace blockbloom {
namespace {

constexpr uint64_t kBlocks = 1024;

BloomFilter Make(uint64_t seed) {
  BloomFilterOptions options;
  options.seed = seed;
  return testing::Created(
      BloomFilter::CreateWithShape({kBlocks, 6, 32}, options));
}

// What an attacker who knows the hash and seed 0 can do offline: find keys
// that all land in block 0 (about kBlocks tries per key).
std::vector<std::string> KeysInBlockZeroUnderSeedZero(size_t n) {
  std::vector<std::string> keys;
  for (uint64_t i = 0; keys.size() < n; ++i) {
    std::string key = absl::StrCat("evil-", i);
    if (internal::BlockIndex(HashKey(key, 0), kBlocks) == 0) {
      keys.push_back(std::move(key));
    }
  }
  return keys;
}

// Fraction of absent probes that land in block 0 (under `seed`) and pass.
double BlockZeroFpRate(const BloomFilter& f, uint64_t seed) {
  int in_block = 0, passed = 0;
  for (int i = 0; in_block < 500; ++i) {
    const std::string probe = absl::StrCat("probe-", i);
    if (internal::BlockIndex(HashKey(probe, seed), kBlocks) != 0) continue;
    ++in_block;
    passed += f.MayContain(probe);
  }
  return static_cast<double>(passed) / in_block;
}

TEST(KeyedHashTest, BlockFloodingKeysDoNotCollideUnderAnotherSeed) {
  const std::vector<std::string> evil = KeysInBlockZeroUnderSeedZero(1000);
  const uint64_t secret = NewRandomSeed();
  ASSERT_NE(secret, 0u);
  for (uint64_t seed : {uint64_t{0}, uint64_t{0x5eed}, secret}) {
    BloomFilter f = Make(seed);
    std::vector<int> load(kBlocks, 0);
    for (const std::string& key : evil) {
      f.Add(key);
      ++load[internal::BlockIndex(HashKey(key, seed), kBlocks)];
    }
    const int max_load = *std::max_element(load.begin(), load.end());
    const double block_zero_rate = BlockZeroFpRate(f, seed);
    std::printf(
        "seed %s: most keys in one block %d, FPR in block 0 %.1f%%, overall "
        "%.4f%%\n",
        seed == 0 ? "0" : (seed == secret ? "random" : "0x5eed"), max_load,
        100 * block_zero_rate, 100 * f.EstimatedFpRate());
    if (seed == 0) {
      // The attack works against the unkeyed hash: one block takes all 1000
      // keys and answers "may contain" for everything.
      EXPECT_EQ(max_load, 1000);
      EXPECT_GT(block_zero_rate, 0.99);
    } else {
      // Binomial(1000, 1/1024) per block: a handful at most.
      EXPECT_LE(max_load, 10);
      EXPECT_LT(block_zero_rate, 0.05);
      EXPECT_LT(f.EstimatedFpRate(), 1e-4);
    }
  }
}

TEST(KeyedHashTest, CraftedFalsePositivesDoNotCarryOverToAnotherSeed) {
  // The attacker knows the key set and seed 0, and searches for keys the
  // filter wrongly answers "may contain" for (to get them past a blocklist
  // check, say). Under another seed those keys are ordinary absent keys.
  std::vector<std::string> members;
  for (int i = 0; i < 60'000; ++i) members.push_back(absl::StrCat("m", i));
  BloomFilter public_filter = Make(0);
  BloomFilter keyed_filter = Make(0x1234abcd);
  for (const std::string& m : members) {
    public_filter.Add(m);
    keyed_filter.Add(m);
  }
  std::vector<std::string> crafted;
  for (int i = 0; crafted.size() < 200; ++i) {
    std::string candidate = absl::StrCat("forged-", i);
    if (public_filter.MayContain(candidate)) crafted.push_back(candidate);
  }
  int still = 0;
  for (const std::string& c : crafted) still += keyed_filter.MayContain(c);
  const double rate = keyed_filter.EstimatedFpRate();
  std::printf(
      "200 forged false positives under seed 0: %d pass the keyed "
      "filter (its FPR %.2f%%)\n",
      still, 100 * rate);
  EXPECT_LT(still, 200 * rate + 5 * std::sqrt(200 * rate) + 3);
}

TEST(KeyedHashTest, CountingFilterCountersDoNotSaturateUnderARandomSeed) {
  // Flooding one block saturates its 4-bit counters under seed 0; with the
  // default random seed the same keys spread out.
  const std::vector<std::string> evil = KeysInBlockZeroUnderSeedZero(300);
  CountingFilterOptions zero;
  zero.seed = 0;
  absl::StatusOr<CountingFilter> attacked =
      CountingFilter::CreateWithShape({kBlocks, 6, 8}, zero);
  absl::StatusOr<CountingFilter> keyed =
      CountingFilter::CreateWithShape({kBlocks, 6, 8});  // random seed
  ASSERT_TRUE(attacked.ok() && keyed.ok());
  for (const std::string& key : evil) {
    attacked->Add(key);
    keyed->Add(key);
  }
  EXPECT_GT(attacked->SaturatedCounters(), 30u);
  EXPECT_EQ(keyed->SaturatedCounters(), 0u);
}

}  // namespace
}  // namespace blockbloom
