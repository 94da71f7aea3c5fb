// The derivation in src/core/layout.h: ranges, distinct lanes, spread of lanes.
#include "src/core/layout.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace blockbloom::internal {
namespace {

TEST(LayoutTest, LaneSetsHaveExactlyKDistinctLanes) {
  for (int k = kMinProbes; k <= kMaxProbes; ++k) {
    for (uint32_t sel = 0; sel < kLaneSets; ++sel) {
      EXPECT_EQ(std::popcount(unsigned{LaneSetsFor(k)[sel]}), k)
          << "k " << k << " selector " << sel;
    }
  }
}

// The accuracy argument of layout.h: every pair of lanes lies in the same
// number of lane sets (a 2-design, as with uniformly random subsets), which
// Z/16 strides or consecutive lanes do not give.
TEST(LayoutTest, LaneSetsArePairwiseBalanced) {
  for (int k = 2; k <= kMaxProbes; ++k) {
    for (int l1 = 0; l1 < kLanes; ++l1) {
      for (int l2 = l1 + 1; l2 < kLanes; ++l2) {
        int together = 0;
        for (uint32_t sel = 0; sel < kLaneSets; ++sel) {
          const uint32_t set = LaneSetsFor(k)[sel];
          together += ((set >> l1) & 1) && ((set >> l2) & 1);
        }
        ASSERT_EQ(together, k * (k - 1))
            << "k " << k << " lanes " << l1 << "," << l2;
      }
    }
  }
}

TEST(LayoutTest, SelectorIsUniformOverTheLaneSets) {
  std::vector<int> count(kLaneSets);
  std::mt19937 rng(5);
  for (int i = 0; i < 240 * 1000; ++i) {
    const uint32_t sel = Selector(static_cast<uint32_t>(rng()));
    ASSERT_LT(sel, static_cast<uint32_t>(kLaneSets));
    count[sel]++;
  }
  for (int c : count) EXPECT_NEAR(c, 1000, 130);  // ~4 sigma
}

TEST(LayoutTest, Gf16IsAField) {
  for (uint32_t a = 1; a < 16; ++a) {
    std::set<uint32_t> products;
    for (uint32_t x = 0; x < 16; ++x) {
      const uint32_t p = Gf16Multiply(a, x);
      ASSERT_LT(p, 16u);
      products.insert(p);
      EXPECT_EQ(p, Gf16Multiply(x, a));
    }
    EXPECT_EQ(products.size(), 16u) << a;  // no zero divisors
  }
  EXPECT_EQ(Gf16Multiply(2, 8), 3u);  // x * x^3 = x^4 = x + 1
}

TEST(LayoutTest, EveryLaneIsUsedEquallyOften) {
  for (int k = kMinProbes; k <= kMaxProbes; ++k) {
    int uses[kLanes] = {};
    for (uint32_t sel = 0; sel < kLaneSets; ++sel) {
      for (int lane = 0; lane < kLanes; ++lane) {
        uses[lane] += (LaneSetsFor(k)[sel] >> lane) & 1;
      }
    }
    for (int lane = 0; lane < kLanes; ++lane) {
      EXPECT_EQ(uses[lane], k * kLaneSets / kLanes) << "k " << k;
    }
  }
}

TEST(LayoutTest, BlockIndexCoversTheRangeWithoutOverflow) {
  for (uint64_t blocks : {uint64_t{1}, uint64_t{3}, uint64_t{19531},
                          (uint64_t{1} << 32) - 1, uint64_t{1} << 32}) {
    EXPECT_EQ(BlockIndex(0, blocks), 0u);
    EXPECT_EQ(BlockIndex(~uint64_t{0}, blocks), blocks - 1);
    EXPECT_LT(BlockIndex(0xfedcba9876543210, blocks), blocks);
  }
  // The low 32 bits never move the block.
  EXPECT_EQ(BlockIndex(0x00000000ffffffff, 1000), 0u);
  EXPECT_EQ(BlockIndex(0x8000000000000000, 1000), 500u);
}

TEST(LayoutTest, BlocksAreUniformForUniformHashes) {
  constexpr uint64_t kBlocks = 7;  // not a power of two
  int count[kBlocks] = {};
  std::mt19937_64 rng(1);
  for (int i = 0; i < 70000; ++i) count[BlockIndex(rng(), kBlocks)]++;
  for (uint64_t b = 0; b < kBlocks; ++b) {
    EXPECT_NEAR(count[b], 10000, 400);  // 4 sigma
  }
}

TEST(LayoutTest, BitsInLaneAreUniform) {
  std::mt19937 rng(2);
  for (int lane = 0; lane < kLanes; ++lane) {
    int count[kLaneBits] = {};
    for (int i = 0; i < 32000; ++i) {
      const uint32_t bit = BitInLane(static_cast<uint32_t>(rng()), lane);
      ASSERT_LT(bit, 32u);
      count[bit]++;
    }
    for (int b = 0; b < kLaneBits; ++b) EXPECT_NEAR(count[b], 1000, 130);
  }
}

TEST(LayoutTest, BlockMaskSetsOneBitPerUsedLane) {
  std::mt19937_64 rng(3);
  for (int k = kMinProbes; k <= kMaxProbes; ++k) {
    for (int i = 0; i < 100; ++i) {
      uint32_t mask[kLanes];
      BlockMask(static_cast<uint32_t>(rng()), LaneSetsFor(k), mask);
      int used = 0;
      for (uint32_t m : mask) {
        EXPECT_LE(std::popcount(m), 1);
        used += std::popcount(m);
      }
      EXPECT_EQ(used, k);
    }
  }
}

TEST(LayoutTest, ReferenceInsertThenProbe) {
  std::vector<uint8_t> bits(3 * kBlockBytes);
  const FilterRef ref = {bits.data(), 3, LaneSetsFor(7), 0};
  std::mt19937_64 rng(4);
  std::vector<uint64_t> added;
  for (int i = 0; i < 20; ++i) {
    added.push_back(rng());
    ReferenceInsert(ref, bits.data(), added.back());
  }
  for (uint64_t h : added) EXPECT_TRUE(ReferenceMayContain(ref, h));
  // An empty filter contains nothing.
  std::vector<uint8_t> empty(3 * kBlockBytes);
  const FilterRef none = {empty.data(), 3, LaneSetsFor(7), 0};
  for (uint64_t h : added) EXPECT_FALSE(ReferenceMayContain(none, h));
}

// With 32-bit lanes, the general bit addressing (bit B*16*w + L*w + j) is
// exactly "bit j of the little-endian 32-bit word L of 64-byte block B", the
// view the SIMD kernels take.
TEST(LayoutTest, BitAddressingMatchesLittleEndianWords) {
  std::mt19937_64 rng(6);
  std::vector<uint8_t> bits(5 * kBlockBytes);
  const FilterRef ref = {bits.data(), 5, LaneSetsFor(6), 0, 32};
  for (int i = 0; i < 1000; ++i) {
    const uint64_t h = rng();
    std::fill(bits.begin(), bits.end(), 0);
    ReferenceInsert(ref, bits.data(), h);
    uint32_t mask[kLanes];
    BlockMask(static_cast<uint32_t>(h), LaneSetsFor(6), mask);
    const uint8_t* block = bits.data() + BlockIndex(h, 5) * kBlockBytes;
    for (int lane = 0; lane < kLanes; ++lane) {
      uint32_t word;
      std::memcpy(&word, block + 4 * lane, 4);
      ASSERT_EQ(word, mask[lane]);
    }
  }
}

TEST(LayoutTest, BitInLaneIsInRangeForEveryWidth) {
  std::mt19937 rng(7);
  for (uint32_t w : {1u, 2u, 3u, 5u, 8u, 13u, 24u, 31u, 32u, 33u, 88u, 100u,
                     255u, 511u, 512u}) {
    std::vector<int> count(w);
    for (int i = 0; i < 20000; ++i) {
      const uint32_t lo = static_cast<uint32_t>(rng());
      const uint32_t bit = BitInLane(lo, i % kLanes, w);
      ASSERT_LT(bit, w);
      count[bit]++;
      if (w == 32) {
        ASSERT_EQ(bit, (lo * kLaneSalt[i % kLanes]) >> 27);
      }
    }
    for (int c : count) EXPECT_NEAR(c, 20000.0 / w, 5 * std::sqrt(20000.0 / w));
  }
}

TEST(LayoutTest, NarrowLanesKeepBitsInsideTheirLaneAndBlock) {
  std::mt19937_64 rng(8);
  for (uint32_t w : {1u, 3u, 17u, 24u, 31u, 88u, 512u}) {
    const uint64_t blocks = 3;
    std::vector<uint8_t> bits(blocks * 2 * w);
    const FilterRef ref = {bits.data(), blocks, LaneSetsFor(5), 0, w};
    for (int i = 0; i < 500; ++i) {
      const uint64_t h = rng();
      const uint64_t block = BlockIndex(h, blocks);
      const uint32_t set = LaneSetsFor(5)[Selector(static_cast<uint32_t>(h))];
      ForEachBit(ref, h, [&](uint64_t bit) {
        ASSERT_LT(bit, blocks * kLanes * w);
        ASSERT_EQ(bit / (kLanes * w), block);
        ASSERT_TRUE((set >> ((bit % (kLanes * w)) / w)) & 1);
      });
      ReferenceInsert(ref, bits.data(), h);
      ASSERT_TRUE(ReferenceMayContain(ref, h));
    }
  }
}

// Pin the derivation: if any constant changes, these values change, and so
// would every filter ever written. Update them only with a format version.
TEST(LayoutTest, DerivationIsPinned) {
  EXPECT_EQ(Selector(0), 0u);
  EXPECT_EQ(Selector(0x12345678),
            (uint64_t{0x12345678u * 0xe49b69c1u} * 240) >> 32);
  EXPECT_EQ(LaneSet(6, 0), 0b0000000000111111);  // a = 1, b = 0
  EXPECT_EQ(LaneSet(6, 5), 0b0000000011110011);  // {0..5} XOR 5
  // a = 2 (x), b = 1: {1, 3, 5, 7, 9, 11}: 2x for x < 6 is 0,2,4,6,8,10.
  EXPECT_EQ(LaneSet(6, 17), 0b0000101010101010);
  // a = 2, b = 0, k = 9: 2x for x < 9 = 0,2,...,14 and 2*8 = x^4 = 3.
  EXPECT_EQ(LaneSet(9, 16), 0b0101010101011101);
  uint32_t mask[kLanes];
  BlockMask(0xdeadbeef, LaneSetsFor(6), mask);
  const uint32_t set = LaneSet(6, Selector(0xdeadbeef));
  for (int lane = 0; lane < kLanes; ++lane) {
    const uint32_t want =
        ((set >> lane) & 1) ? 1u << ((0xdeadbeefu * kLaneSalt[lane]) >> 27) : 0;
    EXPECT_EQ(mask[lane], want);
  }
}

}  // namespace
}  // namespace blockbloom::internal
