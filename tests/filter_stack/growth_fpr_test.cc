// Statistical (ctest label `statistical`): a filter stack grown far past
// its capacity answers "may contain" for absent keys at most at the asked
// rate, at every fill (0.1x to 64x its capacity) and every expansion: the
// promise the split of the rate between layers makes (filter_stack.h). The
// stack is the module's own (its layers, sizing and adds), without a server.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "src/filter_stack/filter_stack.h"
#include "tests/filter_stack/stack_testing.h"

namespace blockbloom::redis_module {
namespace {

using testing::Key;
using testing::Options;

constexpr uint64_t kProbes = 200000;

struct GrowthCase {
  double rate;
  uint32_t expansion;
  uint64_t capacity;
};

class GrowthFpr : public ::testing::TestWithParam<GrowthCase> {};

TEST_P(GrowthFpr, AtOrBelowTheAskedRateAtEveryFill) {
  const GrowthCase c = GetParam();
  absl::StatusOr<FilterStack> stack =
      FilterStack::Create(Options(c.capacity, c.rate, 2024, c.expansion));
  ASSERT_TRUE(stack.ok()) << stack.status();
  std::vector<std::string> absent;
  for (uint64_t i = 0; i < kProbes; ++i) absent.push_back(Key("absent-", i));
  const std::vector<std::string_view> probes(absent.begin(), absent.end());
  std::unique_ptr<bool[]> results(new bool[kProbes]);
  const double sigma = std::sqrt(c.rate * (1 - c.rate) / kProbes);
  uint64_t offered = 0;
  for (const double fill : {0.1, 1.0, 4.0, 16.0, 64.0}) {
    const uint64_t target = static_cast<uint64_t>(fill * c.capacity);
    for (; offered < target; ++offered) {
      absl::StatusOr<bool> added = stack->Add(Key("in-", offered));
      ASSERT_TRUE(added.ok()) << added.status();
    }
    stack->MayContainBatch(probes, results.get());
    uint64_t positives = 0;
    for (uint64_t i = 0; i < kProbes; ++i) positives += results[i];
    const double measured =
        static_cast<double>(positives) / static_cast<double>(kProbes);
    SCOPED_TRACE(absl::StrCat("fill ", fill, "x: ", stack->layers().size(),
                              " layers, measured ", measured, ", expected ",
                              stack->EstimatedFpRate()));
    EXPECT_LE(stack->EstimatedFpRate(), c.rate);
    EXPECT_LE(measured, c.rate + 3 * sigma);
    RecordProperty(absl::StrCat("fpr_at_", fill, "x"),
                   std::to_string(measured));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Expansions, GrowthFpr,
    ::testing::Values(GrowthCase{0.01, 2, 50000}, GrowthCase{0.01, 1, 20000},
                      GrowthCase{0.01, 4, 50000}, GrowthCase{0.001, 2, 50000}),
    [](const ::testing::TestParamInfo<GrowthCase>& param) {
      return absl::StrCat("rate", param.param.rate == 0.01 ? "1pct" : "01pct",
                          "_expansion", param.param.expansion);
    });

}  // namespace
}  // namespace blockbloom::redis_module
