// The per-thread cache of verified blocks behind FilterPolicy::KeyMayMatch
// (src/policy/probe_cache.h): a block is verified once per thread, found again
// by its content, answered from the copy that was verified, and bounded by its
// budget; a damaged block is cached as "may match". The blocks here are of
// the accurate encoding (fewer_false_positives): in-place
// blocks, the default, never go through the cache (tests/core/
// in_place_test.cc, tests/format/format_test.cc).
#include "src/policy/probe_cache.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/filter_policy.h"
#include "gtest/gtest.h"
#include "src/core/filter_access.h"
#include "src/policy/policy_access.h"
#include "tests/accurate_v2_block.h"
#include "tests/policy/engine_test_util.h"

namespace blockbloom {
namespace {

using ::blockbloom::testing::PolicyBlock;

using internal::ThisThreadProbeCacheStats;

FilterPolicy Policy(uint64_t seed = 0, size_t budget = size_t{16} << 20,
                    bool verify = true) {
  FilterPolicy::Options options;
  options.exact_size = true;
  options.fewer_false_positives = true;
  options.seed = seed;
  options.probe_cache_bytes = budget;
  options.verify_checksum = verify;
  return *FilterPolicy::Create(options);
}

std::vector<std::string> Keys(int n, int salt) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) keys.push_back(absl::StrCat("k", salt, "-", i));
  return keys;
}

bool Match(const FilterPolicy& policy, const std::string& key,
           const std::string& block) {
  return policy.KeyMayMatch(key, AsBytes(block));
}

// Each test runs in a fresh thread, so that it starts with an empty cache.
template <typename Body>
void InFreshThread(Body body) {
  std::thread(body).join();
}

TEST(ProbeCacheTest, InPlaceBlocksNeverUseIt) {
  InFreshThread([] {
    FilterPolicy::Options options;
    options.exact_size = true;  // the default: in-place blocks
    const FilterPolicy policy = *FilterPolicy::Create(options);
    for (int f = 0; f < 50; ++f) {
      const auto keys = Keys(40, f);
      const std::string block = PolicyBlock(policy, keys);
      for (const auto& k : keys) ASSERT_TRUE(Match(policy, k, block));
    }
    EXPECT_EQ(ThisThreadProbeCacheStats().misses, 0u);
    EXPECT_EQ(ThisThreadProbeCacheStats().entries, 0u);
  });
}

TEST(ProbeCacheTest, VerifiesABlockOncePerThread) {
  InFreshThread([] {
    const FilterPolicy policy = Policy();
    const auto keys = Keys(150, 1);
    const std::string block = PolicyBlock(policy, keys);
    for (int round = 0; round < 3; ++round) {
      for (const auto& k : keys) ASSERT_TRUE(Match(policy, k, block));
    }
    EXPECT_EQ(ThisThreadProbeCacheStats().misses, 1u);
    EXPECT_EQ(ThisThreadProbeCacheStats().entries, 1u);
    // The same content elsewhere in memory is the same block: correct
    // answers (whether the slot is shared or not).
    const std::string copy = "xx" + block;
    for (const auto& k : keys) {
      ASSERT_TRUE(policy.KeyMayMatch(k, AsBytes(copy).subspan(2)));
    }
  });
}

TEST(ProbeCacheTest, NewContentAtTheSameAddressIsANewBlock) {
  InFreshThread([] {
    const FilterPolicy policy = Policy();
    std::string buffer = PolicyBlock(policy, Keys(100, 1));
    const char* address = buffer.data();
    for (int salt = 2; salt < 40; ++salt) {
      const auto keys = Keys(100, salt);
      const std::string next = PolicyBlock(policy, keys);
      ASSERT_EQ(next.size(), buffer.size());
      buffer.replace(0, next.size(), next);  // same memory, new filter
      ASSERT_EQ(buffer.data(), address);
      for (const auto& k : keys) ASSERT_TRUE(Match(policy, k, buffer)) << salt;
      int absent = 0;
      for (const auto& k : Keys(1000, 1000 + salt)) {
        absent += Match(policy, k, buffer);
      }
      EXPECT_LT(absent, 30);  // a real filter, not a fail-open one
    }
  });
}

// Two filters of nearly the same keys (one key replaced, as a compaction
// does), one after the other in the same memory. In format version 2 such a
// pair often has the same cache key but for the CRC-16: same length, same
// first and last 8 bytes (the change sits in the middle). Once in 65,536
// the CRC-16s agree too, and the second filter is answered from the first's
// copy: the replaced-in key is a false negative. In version 3 (first 8
// bytes whitened) the keys differ even with the checksum taken out, and
// each filter gets its own answers at the same address.
TEST(ProbeCacheTest, NearlyEqualFiltersAtOneAddressAreToldApart) {
  InFreshThread([] {
    const FilterPolicy policy = Policy();
    const internal::ProbeCacheConfig& config =
        internal::PolicyAccess::CacheConfig(policy);
    // The cache's key of a block with its CRC-16 zeroed.
    auto key_without_crc = [&config](std::string block) {
      block[block.size() - 3] = block[block.size() - 2] = 0;
      return internal::ProbeCacheKeyOf(AsBytes(block), config).word;
    };
    std::vector<std::string> keys = Keys(140, 1);
    int pairs = 0;
    for (int i = 0; i < 1000 && pairs < 20; ++i) {
      std::vector<std::string> next = keys;
      next[i % 140] = absl::StrCat("replaced-", i);
      const std::string first = PolicyBlock(policy, keys);
      const std::string second = PolicyBlock(policy, next);
      if (first.size() != second.size() || first == second) continue;
      const std::string first_v2 = AccurateVersion2Block(first, 0);
      const std::string second_v2 = AccurateVersion2Block(second, 0);
      if (key_without_crc(first_v2) != key_without_crc(second_v2)) continue;
      ++pairs;
      // Version 3: the ends alone tell them apart.
      EXPECT_NE(key_without_crc(first), key_without_crc(second)) << i;
      std::string buffer = first;
      const char* address = buffer.data();
      const std::string& added = next[i % 140];
      ASSERT_FALSE(Match(policy, added, buffer)) << i;  // caches the first
      std::memcpy(buffer.data(), second.data(), second.size());
      ASSERT_EQ(buffer.data(), address);
      for (const auto& k : next) ASSERT_TRUE(Match(policy, k, buffer)) << i;
    }
    EXPECT_EQ(pairs, 20);  // version 2 pairs with the same ends are common
  });
}

// The cached copy answers: damage in the middle of a block after it was
// verified cannot cost a key (the first and last 8 bytes name the block).
TEST(ProbeCacheTest, AnswersFromTheVerifiedCopy) {
  InFreshThread([] {
    const FilterPolicy policy = Policy();
    const auto keys = Keys(150, 3);
    std::string block = PolicyBlock(policy, keys);
    ASSERT_TRUE(Match(policy, keys[0], block));
    for (size_t i = 8; i + 8 < block.size(); ++i) block[i] = 0;
    for (const auto& k : keys) ASSERT_TRUE(Match(policy, k, block));
    EXPECT_EQ(ThisThreadProbeCacheStats().misses, 1u);
    // Damage that reaches the last 8 bytes is a new block: verified, and
    // failing, it matches everything.
    block[block.size() - 4] ^= 1;
    for (const auto& k : Keys(100, 99)) ASSERT_TRUE(Match(policy, k, block));
    EXPECT_EQ(ThisThreadProbeCacheStats().misses, 2u);  // once, not per probe
  });
}

TEST(ProbeCacheTest, ReadersWithAnotherSeedOrVerificationKeepApart) {
  InFreshThread([] {
    const FilterPolicy seven = Policy(7);
    const FilterPolicy eight = Policy(8);
    const FilterPolicy trusting = Policy(7, size_t{16} << 20, false);
    const auto keys = Keys(60, 4);
    const std::string block = PolicyBlock(seven, keys);
    // Two readers of one block, interleaved: both stay cached (a block's
    // address has two ways).
    int seven_hits = 0, eight_hits = 0;
    for (const auto& k : Keys(2000, 5)) {
      seven_hits += Match(seven, k, block);
      eight_hits += Match(eight, k, block);
    }
    EXPECT_LT(seven_hits, 40);
    EXPECT_EQ(eight_hits, 2000);  // another seed: a checksum mismatch
    EXPECT_EQ(ThisThreadProbeCacheStats().misses, 2u);
    // Without verification, the bits are read with the seed given.
    for (const auto& k : Keys(2000, 5)) {
      ASSERT_EQ(Match(trusting, k, block), Match(seven, k, block));
    }
  });
}

TEST(ProbeCacheTest, StaysWithinItsBudget) {
  InFreshThread([] {
    const size_t budget = 64 << 10;
    const FilterPolicy policy = Policy(0, budget);
    std::vector<std::string> blocks;
    std::vector<std::vector<std::string>> keys;
    for (int i = 0; i < 2000; ++i) {
      keys.push_back(Keys(40, i));
      blocks.push_back(PolicyBlock(policy, keys.back()));
    }
    for (int round = 0; round < 2; ++round) {
      for (size_t i = 0; i < blocks.size(); ++i) {
        ASSERT_TRUE(Match(policy, keys[i][i % 40], blocks[i]));
        ASSERT_LE(ThisThreadProbeCacheStats().bytes, budget);
      }
    }
    EXPECT_GT(ThisThreadProbeCacheStats().entries, 50u);
    // A block over the budget is opened anew on every probe, correctly.
    const auto big_keys = Keys(100000, 77);
    const std::string big = PolicyBlock(policy, big_keys);
    ASSERT_GT(big.size(), budget);
    const uint64_t misses = ThisThreadProbeCacheStats().misses;
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(Match(policy, big_keys[i], big));
    EXPECT_EQ(ThisThreadProbeCacheStats().misses, misses + 10);
  });
}

TEST(ProbeCacheTest, ABudgetOfZeroVerifiesEveryProbe) {
  InFreshThread([] {
    const FilterPolicy policy = Policy(0, 0);
    const auto keys = Keys(30, 6);
    const std::string block = PolicyBlock(policy, keys);
    for (const auto& k : keys) ASSERT_TRUE(Match(policy, k, block));
    EXPECT_EQ(ThisThreadProbeCacheStats().entries, 0u);
  });
}

// Blocks allocated at a regular stride spread over the buckets as random
// keys would: 8,192 blocks into 4,096 buckets fill ~3,542 of them (1 -
// e^-2). A multiply alone filled 1,967 at a stride of 64 bytes, so many
// filters sat in ways the hit path does not look at.
TEST(ProbeCacheTest, AddressesAtAStrideSpreadOverTheBuckets) {
  constexpr int kShift = 64 - 12;  // 4,096 buckets
  for (uint64_t stride : {16, 48, 64, 80, 128, 256, 4096}) {
    std::vector<bool> used(4096);
    int buckets = 0;
    for (uint64_t i = 0; i < 8192; ++i) {
      const auto* address =
          reinterpret_cast<const uint8_t*>(0x55555555a000 + stride * i);
      const uint64_t b = internal::ProbeCacheAddressHash(address) >> kShift;
      buckets += !used[b];
      used[b] = true;
    }
    EXPECT_GT(buckets, 3400) << "stride " << stride;
  }
}

TEST(ProbeCacheTest, ThreadsHaveTheirOwnCaches) {
  const FilterPolicy policy = Policy();
  const auto keys = Keys(100, 8);
  const std::string block = PolicyBlock(policy, keys);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < 50; ++round) {
        for (const auto& k : keys) ASSERT_TRUE(Match(policy, k, block));
      }
      EXPECT_EQ(ThisThreadProbeCacheStats().misses, 1u);
    });
  }
  for (auto& t : threads) t.join();
}

}  // namespace
}  // namespace blockbloom
