// The kernels the mutable filters add: `add_hash` / `add_hashes` on every
// compiled Highway target, and the atomic insert and probe of the concurrent
// mode, must set exactly the bits ReferenceInsert sets and answer what
// ReferenceAdd / ReferenceMayContain answer.
#include <hwy/highway.h>
#include <hwy/targets.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "src/core/layout.h"
#include "src/core/probe.h"
#include "src/memory/atomic_bits.h"
#include "tests/hwy_targets.h"

namespace blockbloom::internal {
namespace {

// Random hashes with repeats (so that "already present" is exercised) and
// the edge values of the derivation.
std::vector<uint64_t> Hashes(size_t n) {
  std::vector<uint64_t> h = {0, ~uint64_t{0}, 0xffffffff, 0xffffffff00000000};
  std::mt19937_64 rng(99);
  for (size_t i = 0; i < n; ++i) h.push_back(rng());
  for (size_t i = 0; i < n / 4; ++i) h.push_back(h[rng() % h.size()]);
  return h;
}

// The reference: bits after inserting in order, and ReferenceAdd's answers.
struct Expected {
  std::vector<uint8_t> bits;
  std::vector<bool> added;
};
Expected Reference(const FilterRef& geometry, const std::vector<uint64_t>& h,
                   size_t n) {
  Expected e;
  e.bits.assign(geometry.num_blocks * BlockBytes(geometry.lane_bits) + 4, 0);
  for (size_t i = 0; i < n; ++i) {
    e.added.push_back(ReferenceAdd(geometry, e.bits.data(), h[i]));
  }
  // ReferenceAdd sets what ReferenceInsert sets.
  std::vector<uint8_t> insert_bits(e.bits.size());
  for (size_t i = 0; i < n; ++i) {
    ReferenceInsert(geometry, insert_bits.data(), h[i]);
  }
  EXPECT_EQ(insert_bits, e.bits);
  return e;
}

TEST(MemoryKernelsTest, AddMatchesReferenceOnEveryTarget) {
  const std::vector<uint64_t> hashes = Hashes(3000);
  for (uint64_t blocks : {uint64_t{1}, uint64_t{3}, uint64_t{64}}) {
    for (int k : {1, 2, 6, 7, 16}) {
      const FilterRef geometry = {nullptr, blocks, LaneSetsFor(k), 0, 32};
      for (size_t n : {size_t{0}, size_t{1}, size_t{33}, hashes.size()}) {
        const Expected want = Reference(geometry, hashes, n);
        size_t want_count = 0;
        for (bool a : want.added) want_count += a;
        testing::ForEachHwyTargetNamed(ActiveTargetName, [&] {
          // Single adds, into a misaligned buffer.
          std::vector<uint8_t> got(want.bits.size() + 1);
          for (size_t i = 0; i < n; ++i) {
            ASSERT_EQ(AddHash(geometry, got.data() + 1, hashes[i]),
                      want.added[i])
                << "hash " << i;
          }
          ASSERT_EQ(0, std::memcmp(got.data() + 1, want.bits.data(),
                                   want.bits.size()));
          // Batches, with and without per-key results.
          std::vector<uint8_t> batch(want.bits.size());
          std::unique_ptr<bool[]> added(new bool[n + 1]);
          added[n] = true;  // sentinel
          ASSERT_EQ(
              AddHashes(geometry, batch.data(), hashes.data(), n, added.get()),
              want_count);
          for (size_t i = 0; i < n; ++i) ASSERT_EQ(added[i], want.added[i]);
          ASSERT_TRUE(added[n]);
          ASSERT_EQ(batch, want.bits);
          std::vector<uint8_t> no_results(want.bits.size());
          ASSERT_EQ(
              AddHashes(geometry, no_results.data(), hashes.data(), n, nullptr),
              want_count);
          ASSERT_EQ(no_results, want.bits);
        });
      }
    }
  }
}

// Lanes of other widths than 32 (one-block small filters, the counting
// filter's 8) take the scalar kernels.
TEST(MemoryKernelsTest, OtherLaneWidthsAddMatchesReference) {
  const std::vector<uint64_t> hashes = Hashes(500);
  for (uint32_t w : {1u, 5u, 8u, 13u, 31u, 33u, 100u, 512u}) {
    for (uint64_t blocks : {uint64_t{1}, uint64_t{7}}) {
      const FilterRef geometry = {nullptr, blocks, LaneSetsFor(5), 0, w};
      const Expected want = Reference(geometry, hashes, hashes.size());
      std::vector<uint8_t> got(want.bits.size());
      for (size_t i = 0; i < hashes.size(); ++i) {
        ASSERT_EQ(AddHash(geometry, got.data(), hashes[i]), want.added[i]);
      }
      ASSERT_EQ(got, want.bits) << "w " << w;
    }
  }
}

TEST(MemoryKernelsTest, AtomicAddAndProbeMatchReference) {
  const std::vector<uint64_t> hashes = Hashes(2000);
  std::mt19937_64 rng(5);
  for (uint32_t w : {32u, 8u, 7u, 1u, 64u, 333u, 512u}) {
    for (uint64_t blocks : {uint64_t{1}, uint64_t{5}, uint64_t{33}}) {
      for (int k : {1, 6, 16}) {
        const FilterRef geometry = {nullptr, blocks, LaneSetsFor(k), 0, w};
        const Expected want = Reference(geometry, hashes, hashes.size());
        // Word-aligned and padded, as AlignedBuffer gives.
        std::vector<uint32_t> words((want.bits.size() + 3) / 4 + 1);
        uint8_t* bits = reinterpret_cast<uint8_t*>(words.data());
        for (size_t i = 0; i < hashes.size(); ++i) {
          ASSERT_EQ(AtomicAdd(geometry, bits, hashes[i]), want.added[i]);
        }
        ASSERT_EQ(0, std::memcmp(bits, want.bits.data(), want.bits.size()));
        FilterRef ref = geometry;
        ref.bits = bits;
        for (size_t i = 0; i < 2000; ++i) {
          const uint64_t h = i < hashes.size() / 2 ? hashes[i] : rng();
          ASSERT_EQ(AtomicMayContain(ref, h), ReferenceMayContain(ref, h));
        }
      }
    }
  }
}

}  // namespace
}  // namespace blockbloom::internal
