// Every compiled Highway target must answer exactly what the scalar reference
// answers, for single and batch probes and for inserts. Each target the CPU
// supports is forced in turn.
#include <hwy/highway.h>
#include <hwy/targets.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "src/core/key_hash.h"
#include "src/core/layout.h"
#include "src/core/probe.h"
#include "tests/hwy_targets.h"

namespace blockbloom::internal {
namespace {

TEST(SimdTest, TestsMoreThanOneTargetOnX86) {
#if HWY_ARCH_X86
  std::vector<std::string> names;
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    names.push_back(hwy::TargetName(t));
  }
  std::printf("targets tested:");
  for (const auto& n : names) std::printf(" %s", n.c_str());
  std::printf("\n");
  EXPECT_GE(names.size(), 2u);
#endif
}

// Hashes that hit the edges of the derivation: first and last block, all-
// zero and all-one halves, every selector.
std::vector<uint64_t> EdgeAndRandomHashes(size_t random_count) {
  std::vector<uint64_t> h = {0,
                             ~uint64_t{0},
                             0xffffffff,
                             0xffffffff00000000,
                             0x8000000000000000,
                             0x0000000080000000,
                             0x00000001ffffffff};
  for (uint32_t sel = 0; sel < 256; ++sel) {
    h.push_back((uint64_t{sel} << 56) | (uint64_t{sel} * 0x01010101u));
  }
  std::mt19937_64 rng(42);
  for (size_t i = 0; i < random_count; ++i) h.push_back(rng());
  return h;
}

// Blocks with a given fraction of bits set: dense ones make probes pass,
// sparse ones make them fail, so both answers are exercised.
std::vector<uint8_t> RandomBits(uint64_t num_blocks, double density,
                                uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution bit(density);
  std::vector<uint8_t> bits(num_blocks * kBlockBytes + 1);  // +1: misalign
  for (auto& byte : bits) {
    for (int b = 0; b < 8; ++b) byte |= static_cast<uint8_t>(bit(rng) << b);
  }
  return bits;
}

struct Case {
  uint64_t num_blocks;
  int k;
  double density;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (uint64_t blocks :
       {uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{97}}) {
    for (int k = 1; k <= kMaxProbes; ++k) {
      for (double density : {0.5, 0.9}) cases.push_back({blocks, k, density});
    }
  }
  return cases;
}

TEST(SimdTest, SingleAndBatchProbesMatchReference) {
  const std::vector<uint64_t> hashes = EdgeAndRandomHashes(2000);
  // Precompute the reference answers once per case.
  struct Prepared {
    std::vector<uint8_t> storage;
    FilterRef ref;
    std::vector<bool> expected;
  };
  std::vector<Prepared> prepared;
  size_t positives = 0;
  for (const Case& c : Cases()) {
    Prepared p;
    p.storage = RandomBits(c.num_blocks, c.density, c.num_blocks * 31 + c.k);
    // Offset by one byte: the kernels must not assume alignment.
    p.ref = {p.storage.data() + 1, c.num_blocks, LaneSetsFor(c.k), 7};
    for (uint64_t h : hashes) {
      p.expected.push_back(ReferenceMayContain(p.ref, h));
      positives += p.expected.back();
    }
    prepared.push_back(std::move(p));
  }
  const size_t total = prepared.size() * hashes.size();
  ASSERT_GT(positives, total / 20);
  ASSERT_LT(positives, total - total / 20);

  testing::ForEachHwyTargetNamed(ActiveTargetName, [&] {
    for (const Prepared& p : prepared) {
      for (size_t i = 0; i < hashes.size(); ++i) {
        ASSERT_EQ(MayContainHash(p.ref, hashes[i]), p.expected[i])
            << "hash " << hashes[i];
      }
      for (size_t n : {size_t{0}, size_t{1}, size_t{31}, size_t{32}, size_t{33},
                       size_t{1000}, hashes.size()}) {
        std::unique_ptr<bool[]> results(new bool[n + 1]);
        results[n] = true;  // a sentinel the batch must not touch
        MayContainHashes(p.ref, hashes.data(), n, results.get());
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(results[i], p.expected[i]) << "batch " << n << " at " << i;
        }
        ASSERT_TRUE(results[n]);
      }
    }
  });
}

TEST(SimdTest, KeyProbesMatchReference) {
  std::vector<std::string> keys = {"", "a", std::string(1, '\0'),
                                   std::string(100, 'x'),
                                   std::string(100000, 'y')};
  for (int i = 0; i < 1100; ++i) keys.push_back(absl::StrCat("key-", i));
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<uint8_t> storage = RandomBits(5, 0.8, 5);
  const FilterRef ref = {storage.data(), 5, LaneSetsFor(4), 12345};
  std::vector<bool> expected;
  for (std::string_view key : views) {
    expected.push_back(ReferenceMayContain(ref, Hash64(key, ref.seed)));
  }
  testing::ForEachHwyTargetNamed(ActiveTargetName, [&] {
    for (size_t i = 0; i < views.size(); ++i) {
      ASSERT_EQ(MayContainKey(ref, views[i]), expected[i]) << i;
    }
    for (size_t n : {size_t{0}, size_t{1}, size_t{31}, size_t{32}, size_t{33},
                     size_t{1000}}) {
      std::unique_ptr<bool[]> results(new bool[n]);
      MayContainKeys(ref, views.data(), n, results.get());
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(results[i], expected[i]) << i;
    }
  });
}

TEST(SimdTest, InsertMatchesReferenceBitForBit) {
  const std::vector<uint64_t> hashes = EdgeAndRandomHashes(3000);
  for (uint64_t blocks : {uint64_t{1}, uint64_t{3}, uint64_t{64}}) {
    for (int k : {1, 2, 6, 7, 11, 16}) {
      testing::ForEachHwyTargetNamed(ActiveTargetName, [&] {
        for (size_t n : {size_t{0}, size_t{1}, size_t{33}, hashes.size()}) {
          std::vector<uint8_t> want(blocks * kBlockBytes);
          const FilterRef geometry = {nullptr, blocks, LaneSetsFor(k), 0, 32};
          for (size_t i = 0; i < n; ++i) {
            ReferenceInsert(geometry, want.data(), hashes[i]);
          }
          std::vector<uint8_t> got(blocks * kBlockBytes + 1);  // misaligned
          InsertHashes(geometry, got.data() + 1, hashes.data(), n);
          ASSERT_EQ(0, std::memcmp(got.data() + 1, want.data(), want.size()))
              << "blocks " << blocks << " k " << k << " n " << n;
        }
        // And everything inserted is found.
        std::vector<uint8_t> got(blocks * kBlockBytes);
        const FilterRef ref = {got.data(), blocks, LaneSetsFor(k), 0, 32};
        InsertHashes(ref, got.data(), hashes.data(), hashes.size());
        for (uint64_t h : hashes) ASSERT_TRUE(MayContainHash(ref, h));
      });
    }
  }
}

}  // namespace
}  // namespace blockbloom::internal
