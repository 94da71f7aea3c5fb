// The in-place probe (src/exact_size/in_place.h): the two-bits-per-branch probe
// of a block's own bytes that the LevelDB policy uses by default.
//  - It answers exactly what the scalar reference of the standard layout
//    answers (src/core/layout.h, "In-place filters"), for every k, many sizes
//    (2 bytes to 1 MiB) and densities, at any alignment, and reads nothing
//    outside the payload (ASan: the payload ends the allocation).
//  - Each probe's bits spread evenly over the whole filter.
//  - Blocks it cannot read (too short, too long, another tag) answer "may
//    match".
#include "src/exact_size/in_place.h"

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/core/layout.h"

namespace blockbloom::internal {
namespace {

std::vector<uint64_t> Hashes(size_t n, uint64_t seed) {
  std::vector<uint64_t> h = {0, ~uint64_t{0}, 0xffffffff, 0xffffffff00000000};
  std::mt19937_64 rng(seed);
  while (h.size() < n) h.push_back(rng());
  return h;
}

TEST(InPlaceProbeTest, MatchesTheReferenceAtEverySizeAndK) {
  const std::vector<uint64_t> hashes = Hashes(2000, 3);
  std::mt19937_64 rng(7);
  size_t positives = 0, total = 0;
  for (size_t bytes : {2u, 3u, 4u, 7u, 8u, 9u, 13u, 45u, 46u, 64u, 65u, 190u,
                       1251u, 12501u, 1u << 20}) {
    for (double density : {0.5, 0.9}) {
      // Exactly the payload's bytes, starting one byte into an allocation
      // that ends with them: any alignment, nothing after. Filled once for
      // every k (a megabyte of random bits per k was most of this test's
      // time, 30 s under ASan).
      std::unique_ptr<uint8_t[]> storage(new uint8_t[bytes + 1]);
      uint8_t* bits = storage.get() + 1;
      std::bernoulli_distribution bit(density);
      for (size_t i = 0; i < bytes; ++i) {
        uint8_t b = 0;
        for (int j = 0; j < 8; ++j) b |= static_cast<uint8_t>(bit(rng) << j);
        bits[i] = b;
      }
      for (int k = 1; k <= kMaxProbes; ++k) {
        const FilterRef ref =
            StandardRef(bits, static_cast<uint32_t>(8 * bytes), k, /*seed=*/0);
        for (uint64_t h : hashes) {
          const bool expected = ReferenceMayContain(ref, h);
          ASSERT_EQ(InPlaceMayContainHash(bits, bytes, k, h), expected)
              << bytes << " bytes, k " << k << ", hash " << h;
          positives += expected;
          ++total;
        }
      }
    }
  }
  // Both answers were exercised.
  EXPECT_GT(positives, total / 20);
  EXPECT_LT(positives, total - total / 20);
}

TEST(InPlaceProbeTest, BitsAreSpreadOverTheWholeFilter) {
  // Bit j of 20,000 random keys in a 1,000-bit filter, for every j: each
  // tenth of the filter gets a tenth of them, within 3 sigma.
  for (uint32_t j = 0; j < kMaxProbes; ++j) {
    std::vector<int> decile(10);
    std::mt19937_64 rng(j);
    for (int i = 0; i < 20000; ++i) {
      const uint64_t h = rng();
      const uint32_t bit = StandardBit(1000, static_cast<uint32_t>(h),
                                       static_cast<uint32_t>(h >> 32), j);
      ASSERT_LT(bit, 1000u);
      ++decile[bit / 100];
    }
    for (int d : decile) EXPECT_NEAR(d, 2000, 3 * 42.4) << "probe " << j;
  }
}

TEST(InPlaceProbeTest, ABlockItCannotReadMayMatch) {
  // Too short for 2 bytes of bits, and other tags: "may match", whatever
  // the key.
  for (size_t n : {1u, 2u}) {
    const std::string tiny(n, static_cast<char>(kInPlaceTag + 3));
    EXPECT_TRUE(InPlaceMayMatch(reinterpret_cast<const uint8_t*>(tiny.data()),
                                tiny.size(), 0, "key"));
  }
  std::string zeros(40, '\0');
  for (int tag : {0x10, 0x7F, 0x80, 0x90, 0xA3, 0xFF}) {
    zeros.back() = static_cast<char>(tag);
    EXPECT_TRUE(InPlaceMayMatch(reinterpret_cast<const uint8_t*>(zeros.data()),
                                zeros.size(), 0, "key"))
        << tag;
  }
  // The same zeros with an in-place tag: a filter that holds nothing.
  zeros.back() = static_cast<char>(kInPlaceTag + 6);
  EXPECT_FALSE(InPlaceMayMatch(reinterpret_cast<const uint8_t*>(zeros.data()),
                               zeros.size(), 0, "key"));
  // Past 2^28 bytes of bits: refused by size alone (never read).
  EXPECT_FALSE(InPlaceSizeValid(kInPlaceMaxPayloadBytes + 2));
  EXPECT_TRUE(InPlaceSizeValid(kInPlaceMaxPayloadBytes + 1));
  EXPECT_TRUE(InPlaceSizeValid(3));
}

// The checksummed encodings' tags (0x90-0xFE; 0xFF reserved) are at least
// two flipped bits away from every in-place tag, so that single-bit damage to
// a checked block's tag is still caught (tests/format/corruption_test.cc
// flips every bit of such blocks).
TEST(InPlaceProbeTest, NoSingleBitFlipTurnsACheckedTagIntoAnInPlaceOne) {
  // Every checked tag: 0x90-0xFF, the short ribbon footer's 0x7F and the
  // compact encoding's with an origin, 0x50-0x6F.
  std::vector<int> checked = {0x7F};
  for (int tag = 0x50; tag <= 0x6F; ++tag) checked.push_back(tag);
  for (int tag = 0x90; tag <= 0xFF; ++tag) checked.push_back(tag);
  for (const int tag : checked) {
    EXPECT_FALSE(IsInPlaceTag(static_cast<uint8_t>(tag))) << tag;
    for (int bit = 0; bit < 8; ++bit) {
      EXPECT_FALSE(IsInPlaceTag(static_cast<uint8_t>(tag ^ (1 << bit))))
          << tag << " bit " << bit;
    }
  }
}

}  // namespace
}  // namespace blockbloom::internal
