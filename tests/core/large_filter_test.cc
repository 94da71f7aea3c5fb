// A filter of more than 2^32 bits (600 MiB): block indexes past 2^26 and bit
// offsets past 2^32 must work, probed and built on every path.
#include <cstdint>
#include <random>
#include <vector>

#include "blockbloom/filter.h"
#include "gtest/gtest.h"
#include "src/core/layout.h"

namespace blockbloom {
namespace {

TEST(LargeFilterTest, SixHundredMiBFilterHasNoFalseNegatives) {
  constexpr uint64_t kBytes = uint64_t{600} << 20;
  static_assert(kBytes * 8 > (uint64_t{1} << 32));
  FilterOptions options;
  options.shape = {kBytes / 64, 6};
  FilterBuilder builder = *FilterBuilder::Create(options);
  std::mt19937_64 rng(99);
  std::vector<uint64_t> hashes(2'000'000);
  for (uint64_t& h : hashes) h = rng();
  // Hashes that land in the very last and first blocks.
  hashes.push_back(~uint64_t{0});
  hashes.push_back(0);
  for (uint64_t h : hashes) builder.AddHash(h);
  Filter filter = *builder.Finish();
  ASSERT_EQ(filter.bits().size(), kBytes);

  std::unique_ptr<bool[]> results(new bool[hashes.size()]);
  filter.MayContainHashBatch(hashes,
                             absl::MakeSpan(results.get(), hashes.size()));
  uint64_t highest_block = 0;
  for (size_t i = 0; i < hashes.size(); ++i) {
    ASSERT_TRUE(results[i]) << i;
    ASSERT_TRUE(filter.MayContainHash(hashes[i])) << i;
    highest_block = std::max(
        highest_block, internal::BlockIndex(hashes[i], filter.num_blocks()));
  }
  EXPECT_EQ(highest_block, filter.num_blocks() - 1);
  // Bits past 2^32 were set: the last block is not empty.
  const uint8_t* last = filter.bits().data() + kBytes - 64;
  int set = 0;
  for (int i = 0; i < 64; ++i) set += last[i] != 0;
  EXPECT_GT(set, 0);

  // Also through the sized builder: enough keys that the block count passes
  // 2^26 (4.3 GBit), built by the batched SIMD insert.
  FilterOptions sized;
  sized.bits_per_key = 2700;  // ~1.9M keys * 2700 bits > 2^32 bits
  FilterBuilder big = *FilterBuilder::Create(sized);
  for (size_t i = 0; i < 1'900'000; ++i) big.AddHash(hashes[i]);
  Filter bigger = *big.Finish();
  EXPECT_GT(bigger.bits().size() * 8, uint64_t{1} << 32);
  for (size_t i = 0; i < 1'900'000; ++i)
    ASSERT_TRUE(bigger.MayContainHash(hashes[i]));
  EXPECT_EQ(bigger.num_probes(), 16);  // a very sparse filter
}

}  // namespace
}  // namespace blockbloom
