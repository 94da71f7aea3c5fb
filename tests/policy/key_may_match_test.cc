// FilterPolicy::KeyMayMatch's rules, tested once for every engine door: the
// policy's own entry and the LevelDB adapter (which inlines the same
// function, src/policy/key_may_match.h) give the same answer for every kind
// of block: empty, in-place, exact_size (cached, or with a zero cache budget),
// per-SSTable encodings, damaged, and in-place bytes shown to a policy that
// does not write them.
#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/filter_policy.h"
#include "blockbloom/leveldb.h"
#include "gtest/gtest.h"
#include "tests/policy/engine_test_util.h"

namespace blockbloom {
namespace {

using ::blockbloom::testing::PolicyBlock;

std::vector<std::string> Keys(int n, int salt) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) keys.push_back(absl::StrCat("k", salt, "-", i));
  return keys;
}

FilterPolicy Policy(bool exact_size, bool accurate,
                    size_t budget = size_t{16} << 20) {
  FilterPolicy::Options options;
  options.exact_size = exact_size;
  options.fewer_false_positives = accurate;
  options.probe_cache_bytes = budget;
  return *FilterPolicy::Create(options);
}

absl::Span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// The LevelDB adapter made with the same options as `policy`.
std::unique_ptr<const leveldb::FilterPolicy> Adapter(
    const FilterPolicy& policy) {
  return *NewLevelDBFilterPolicy(policy.options());
}

// Every key of `keys` matches, through both doors, and both doors agree on
// absent keys too.
void ExpectSameAnswers(const FilterPolicy& policy, const std::string& block,
                       const std::vector<std::string>& keys) {
  const auto adapter = Adapter(policy);
  for (const auto& k : keys) {
    ASSERT_TRUE(policy.KeyMayMatch(k, Bytes(block))) << k;
    ASSERT_TRUE(adapter->KeyMayMatch(k, block)) << k;
  }
  for (const auto& k : Keys(500, 999)) {
    ASSERT_EQ(policy.KeyMayMatch(k, Bytes(block)),
              adapter->KeyMayMatch(k, block))
        << k;
  }
}

TEST(KeyMayMatchTest, AnEmptyBlockIsARangeWithNoKeys) {
  for (bool accurate : {false, true}) {
    const FilterPolicy policy = Policy(/*exact_size=*/true, accurate);
    EXPECT_FALSE(policy.KeyMayMatch("k", {}));
    EXPECT_FALSE(Adapter(policy)->KeyMayMatch("k", leveldb::Slice()));
  }
}

TEST(KeyMayMatchTest, InPlaceAndAccurateBlocksAnswerAlikeThroughBothDoors) {
  for (bool accurate : {false, true}) {
    for (size_t budget : {size_t{0}, size_t{16} << 20}) {
      const FilterPolicy policy = Policy(/*exact_size=*/true, accurate, budget);
      for (int n : {0, 1, 36, 140, 1000}) {
        const auto keys = Keys(n, n);
        ExpectSameAnswers(policy, PolicyBlock(policy, keys), keys);
      }
    }
  }
}

TEST(KeyMayMatchTest, EveryEncodingIsReadByAnExactSizePolicy) {
  // Per-SSTable encodings (compact, full), as a non-exact-size policy writes.
  const FilterPolicy sstable = Policy(/*exact_size=*/false, false);
  for (int n : {1, 50, 5000}) {
    const auto keys = Keys(n, 7);
    const std::string block = PolicyBlock(sstable, keys);
    for (const auto& k : keys)
      ASSERT_TRUE(sstable.KeyMayMatch(k, Bytes(block)));
    ExpectSameAnswers(Policy(/*exact_size=*/true, false), block, keys);
  }
}

TEST(KeyMayMatchTest, UnreadableBlocksMatchEverything) {
  for (bool accurate : {false, true}) {
    const FilterPolicy policy = Policy(/*exact_size=*/true, accurate);
    const auto adapter = Adapter(policy);
    std::string block = PolicyBlock(policy, Keys(140, 3));
    // A tag no version writes; a checked block cut short.
    for (std::string bad :
         {block.substr(0, block.size() - 1) + '\xFF', block.substr(1)}) {
      if (!accurate && bad.back() == block.back()) continue;  // no checksum
      for (const auto& k : Keys(200, 5)) {
        ASSERT_TRUE(policy.KeyMayMatch(k, Bytes(bad))) << k;
        ASSERT_TRUE(adapter->KeyMayMatch(k, bad)) << k;
      }
    }
  }
}

TEST(KeyMayMatchTest, OnlyAnExactSizePolicyProbesInPlaceBytes) {
  const FilterPolicy exact_size = Policy(/*exact_size=*/true, false);
  const std::string block = PolicyBlock(exact_size, Keys(140, 4));
  ASSERT_LT(static_cast<uint8_t>(block.back()), 0x10);  // an in-place tag
  const FilterPolicy sstable = Policy(/*exact_size=*/false, false);
  int absent_matches = 0;
  for (const auto& k : Keys(500, 6)) {
    ASSERT_TRUE(sstable.KeyMayMatch(k, Bytes(block))) << k;  // damage to it
    absent_matches += exact_size.KeyMayMatch(k, Bytes(block));
  }
  EXPECT_LT(absent_matches, 50);  // a real filter to the accurate one
}

}  // namespace
}  // namespace blockbloom
