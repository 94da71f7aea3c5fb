// The false-positive rate of ribbon filters (statistical): measured on
// millions of absent keys, it agrees with the exact expectation
// (src/ribbon/sizing.h, ExactFpRate) within 4 sigma, at whole and
// fractional bits/key and at asked rates, with and without pre-bumping; and
// the exact rate is at most the rate asked.
#include <cmath>
#include <cstdint>
#include <iostream>
#include <vector>

#include "gtest/gtest.h"
#include "src/ribbon/sizing.h"
#include "tests/ribbon/ribbon_testing.h"

namespace blockbloom::internal::ribbon {
namespace {

struct Case {
  size_t n;
  double bits_per_key;
  double fp_rate;
};

class RibbonFpRateTest : public ::testing::TestWithParam<Case> {};

TEST_P(RibbonFpRateTest, MeasuredAgreesWithTheExactRate) {
  const Case c = GetParam();
  const uint64_t seed = c.n + static_cast<uint64_t>(c.bits_per_key * 100);
  const std::vector<uint64_t> hashes = ribbon_testing::Hashes(0, c.n, seed);
  const RibbonTarget target = c.fp_rate > 0
                                  ? ribbon_testing::Rate(c.fp_rate)
                                  : ribbon_testing::Budget(c.bits_per_key);
  absl::StatusOr<Filter> filter = ribbon_testing::Build(hashes, target, seed);
  ASSERT_TRUE(filter.ok()) << filter.status();
  const double expected = filter->EstimatedFpRate();
  if (c.fp_rate > 0) {
    EXPECT_LE(expected, c.fp_rate * (1 + 1e-9));
  }
  // Enough probes for ~4,000 false positives.
  const size_t probes =
      static_cast<size_t>(std::clamp(4000 / expected, 1e6, 3e7));
  std::vector<uint64_t> absent(1024);
  std::unique_ptr<bool[]> found(new bool[absent.size()]);
  size_t positives = 0;
  for (size_t done = 0; done < probes; done += absent.size()) {
    for (size_t i = 0; i < absent.size(); ++i) {
      absent[i] =
          Hash64(ribbon_testing::Key(ribbon_testing::kAbsent + done + i), seed);
    }
    filter->MayContainHashBatch(absent,
                                absl::MakeSpan(found.get(), absent.size()));
    for (size_t i = 0; i < absent.size(); ++i) positives += found[i];
  }
  const double total =
      static_cast<double>(probes / absent.size() * absent.size());
  const double measured = static_cast<double>(positives) / total;
  const double sigma = std::sqrt(expected * (1 - expected) / total);
  std::cout << c.n << " keys, " << (c.fp_rate > 0 ? "rate " : "bits/key ")
            << (c.fp_rate > 0 ? c.fp_rate : c.bits_per_key) << ": "
            << 8.0 * static_cast<double>(filter->bits().size()) /
                   static_cast<double>(c.n)
            << " bits/key, expected " << expected << ", measured " << measured
            << " (" << (measured - expected) / sigma << " sigma)\n";
  EXPECT_NEAR(measured, expected, 4 * sigma);
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, RibbonFpRateTest,
    ::testing::Values(Case{100000, 6.7, 0}, Case{100000, 9.3, 0},
                      Case{100000, 13.29, 0}, Case{100000, 0, 0.01},
                      Case{100000, 0, 0.001}, Case{30000, 0, 0.01},
                      Case{300000, 0, 0.0042}, Case{1000000, 0, 0.01},
                      Case{1000000, 0, 1e-4}, Case{1000000, 9.3, 0}));

}  // namespace
}  // namespace blockbloom::internal::ribbon
