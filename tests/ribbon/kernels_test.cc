// The ribbon probe kernels (src/ribbon/kernels.h): every variant the CPU
// has (plain, popcnt, AVX2, AVX-512, each forced in turn), single and
// batched, by hash and by key, answers exactly what the scalar reference
// (src/ribbon/reference.h) answers, for every r from 1 to 31 with whole and
// fractional columns, for filters of one block to many (the masked and the
// wide loads), on payloads at odd addresses that end their allocation.
#include "src/ribbon/kernels.h"

#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "src/ribbon/reference.h"
#include "src/ribbon/sizing.h"
#include "tests/ribbon/ribbon_testing.h"

namespace blockbloom::internal::ribbon {
namespace {

using ribbon_testing::Key;
using ribbon_testing::ViewOf;

std::vector<Isa> SupportedIsas() {
  std::vector<Isa> isas;
  for (int i = 0; i < kNumIsas; ++i) {
    if (IsaSupported(static_cast<Isa>(i))) isas.push_back(static_cast<Isa>(i));
  }
  return isas;
}

TEST(RibbonKernelsTest, TheBestIsaIsChosen) {
  const Isa best = BestIsa();
  EXPECT_TRUE(IsaSupported(best));
  // At most the best: the SIMD target rule may cap the width
  // (tests/core/simd_target_test.cc).
  EXPECT_LE(ActiveIsa(), best);
  std::cout << "ribbon kernels on this CPU: ";
  for (Isa isa : SupportedIsas()) std::cout << IsaName(isa) << " ";
  std::cout << "(best " << IsaName(best) << ")\n";
}

TEST(RibbonKernelsTest, EveryVariantMatchesTheReference) {
  const std::vector<Isa> isas = SupportedIsas();
  size_t positives = 0;
  size_t checked = 0;
  for (int r = 1; r <= kMaxResultBits; ++r) {
    // Whole columns (2^-r) and 3/4 of the way to r + 1.
    for (double rate : {std::ldexp(1.0, -r), std::ldexp(0.625, -r)}) {
      for (size_t n : {1u, 40u, 700u, 20000u}) {
        // Many-layer filters for a few r only: the reference is slow.
        if (n == 20000 && r % 6 != 1) continue;
        SCOPED_TRACE(::testing::Message()
                     << "r " << r << ", rate " << rate << ", n " << n);
        const uint64_t seed = static_cast<uint64_t>(r) * 131 + n;
        std::vector<std::string> keys;
        // The keys and as many absent ones.
        for (uint64_t i = 0; i < n; ++i) keys.push_back(Key(i));
        for (uint64_t i = 0; i < n + 64; ++i) {
          keys.push_back(Key(ribbon_testing::kAbsent + i));
        }
        std::vector<uint64_t> hashes;
        for (const std::string& key : keys) hashes.push_back(Hash64(key, seed));
        absl::StatusOr<Filter> built = ribbon_testing::Build(
            std::vector<uint64_t>(hashes.begin(), hashes.begin() + n),
            ribbon_testing::Rate(rate), seed);
        ASSERT_TRUE(built.ok()) << built.status();
        const ribbon_testing::Reopened copy =
            ribbon_testing::ReopenUnaligned(*built);
        const FilterRef& ref = FilterAccess::Ref(copy.filter);
        const RibbonView& view = ViewOf<RibbonView>(ref);
        ASSERT_EQ(view.result_bits, ColumnsForFpRate(rate).r);
        std::vector<char> expected(hashes.size());
        for (size_t i = 0; i < hashes.size(); ++i) {
          expected[i] = ReferenceMayContain(view, hashes[i]);
          positives += expected[i];
        }
        for (size_t i = 0; i < n; ++i) ASSERT_TRUE(expected[i]);
        const std::vector<std::string_view> views(keys.begin(), keys.end());
        for (Isa isa : isas) {
          SCOPED_TRACE(IsaName(isa));
          const Kernels* kernels =
              QueryKernels(view.num_layers, view.result_bits, isa);
          std::unique_ptr<bool[]> by_hashes(new bool[hashes.size()]);
          std::unique_ptr<bool[]> by_keys(new bool[hashes.size()]);
          kernels->probe_hashes(ref, hashes.data(), hashes.size(),
                                by_hashes.get());
          kernels->probe_keys(ref, views.data(), views.size(), by_keys.get());
          for (size_t i = 0; i < hashes.size(); ++i) {
            ASSERT_EQ(kernels->probe_hash(ref, hashes[i]), expected[i] != 0)
                << "single, hash " << i;
            ASSERT_EQ(kernels->probe_key(ref, views[i]), expected[i] != 0)
                << "single key " << i;
            ASSERT_EQ(by_hashes[i], expected[i] != 0) << "batch, hash " << i;
            ASSERT_EQ(by_keys[i], expected[i] != 0) << "batch key " << i;
          }
          // Batches of every length around the prefetch group's.
          for (size_t length : {0u, 1u, 31u, 32u, 33u, 65u}) {
            if (length > hashes.size()) continue;
            kernels->probe_hashes(ref, hashes.data() + hashes.size() - length,
                                  length, by_hashes.get());
            for (size_t i = 0; i < length; ++i) {
              ASSERT_EQ(by_hashes[i],
                        expected[hashes.size() - length + i] != 0);
            }
          }
          checked += hashes.size();
        }
      }
    }
  }
  // Both answers were exercised.
  EXPECT_GT(positives, checked / kNumIsas / 4);
}

TEST(RibbonKernelsTest, TheFilterProbesWithTheActiveKernels) {
  std::vector<uint64_t> hashes = ribbon_testing::Hashes(0, 5000, 3);
  absl::StatusOr<Filter> built =
      ribbon_testing::Build(hashes, ribbon_testing::Rate(0.003), 3);
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ(FilterAccess::ProbeKey(*built),
            QueryKernels(ViewOf(*built).num_layers, ViewOf(*built).result_bits,
                         ActiveIsa())
                ->probe_key);
  for (uint64_t i = 0; i < 5000; ++i) {
    ASSERT_TRUE(built->MayContain(Key(i)));
  }
  std::vector<std::string> absent;
  for (uint64_t i = 0; i < 100; ++i) {
    absent.push_back(Key(ribbon_testing::kAbsent + i));
  }
  const std::vector<std::string_view> views(absent.begin(), absent.end());
  std::unique_ptr<bool[]> results(new bool[views.size()]);
  built->MayContainBatch(views, absl::MakeSpan(results.get(), views.size()));
  for (size_t i = 0; i < views.size(); ++i) {
    EXPECT_EQ(results[i], built->MayContain(views[i]));
  }
}

}  // namespace
}  // namespace blockbloom::internal::ribbon
