// The filter stack's layer rates (the asked rate split between layer 0 and
// the layers growth adds), the growth of stacks saved by earlier versions,
// and its probes (every layer's block prefetched before any is tested).
#include "src/filter_stack/filter_stack.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/sizing.h"
#include "gtest/gtest.h"
#include "tests/filter_stack/stack_testing.h"

namespace blockbloom::redis_module {
namespace {

using testing::Key;
using testing::MakeLegacyStack;
using testing::MakeStack;
using testing::Options;

// Adds keys `prefix`0, 1, ... until the stack has `layers` layers.
void GrowTo(FilterStack& stack, size_t layers, const std::string& prefix) {
  for (uint64_t i = 0; stack.layers().size() < layers; ++i) {
    absl::StatusOr<bool> added = stack.Add(Key(prefix, i));
    ASSERT_TRUE(added.ok()) << added.status();
  }
}

TEST(FilterStackTest, LayerZeroTakesTheFirstShareOfTheRate) {
  absl::StatusOr<FilterStack> stack =
      FilterStack::Create(Options(1000, 0.01, 1));
  ASSERT_TRUE(stack.ok()) << stack.status();
  EXPECT_DOUBLE_EQ(stack->layers()[0].fp_rate(), 0.0082);
  EXPECT_DOUBLE_EQ(stack->options().fp_rate, 0.01);
  // NONSCALING: one layer, at the whole rate.
  absl::StatusOr<FilterStack> fixed =
      FilterStack::Create(Options(1000, 0.01, 1, 2, /*nonscaling=*/true));
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  EXPECT_DOUBLE_EQ(fixed->layers()[0].fp_rate(), 0.01);
}

TEST(FilterStackTest, GrowthLayersShareTheRestGeometrically) {
  for (const uint32_t expansion : {1u, 2u, 4u}) {
    SCOPED_TRACE(absl::StrCat("expansion ", expansion));
    absl::StatusOr<FilterStack> stack =
        FilterStack::Create(Options(20, 0.01, 7, expansion));
    ASSERT_TRUE(stack.ok()) << stack.status();
    GrowTo(*stack, 8, "g-");
    const double t = expansion >= 2 ? 0.6 : 0.85;
    double sum = 0;
    uint64_t capacity = 20;
    for (size_t i = 0; i < stack->layers().size(); ++i) {
      const Layer& layer = stack->layers()[i];
      const double want =
          i == 0 ? 0.0082
                 : 0.0018 * (1 - t) * std::pow(t, static_cast<double>(i - 1));
      EXPECT_NEAR(layer.fp_rate(), want, want * 1e-12) << "layer " << i;
      EXPECT_EQ(layer.capacity(), capacity) << "layer " << i;
      capacity *= expansion;
      sum += layer.fp_rate();
    }
    EXPECT_LT(sum, 0.01);
    // Over any number of layers the rates add up to the asked one.
    EXPECT_NEAR(0.0082 + 0.0018 * (1 - std::pow(t, 1000.0)), 0.01, 1e-15);
  }
}

// Whatever the fill, the stack's expected rate (the exact rate of each
// layer's shape for its keys, layers combined) stays below the asked one.
// Layers are sized as growth sizes them, and counted full: the model,
// without adding billions of keys.
TEST(FilterStackTest, ExpectedRateStaysBelowTheAskedRateAtEveryFill) {
  for (const double p : {0.01, 0.001, 1e-5}) {
    for (const uint32_t expansion : {1u, 2u, 4u}) {
      SCOPED_TRACE(absl::StrCat("rate ", p, " expansion ", expansion));
      const StackOptions options = Options(20000, p, 3, expansion);
      std::vector<Layer> layers;
      double worst = 0;
      double full_pass = 1;  // 1 - the rate of the full layers before
      uint64_t capacity = options.capacity;
      for (size_t i = 0; i < FilterStack::kMaxLayers; ++i) {
        const double rate = i == 0 ? FilterStack::FirstLayerRate(options)
                                   : FilterStack::GrowthLayerRate(
                                         p, layers[0].fp_rate(),
                                         layers.back().fp_rate(), expansion, i);
        absl::StatusOr<Layer> layer = Layer::Create(capacity, rate);
        if (!layer.ok()) break;  // too large to size: growth stops there too
        layers.push_back(*std::move(layer));
        // The worst fill of this layer count: its newest layer full.
        absl::StatusOr<double> newest =
            EstimatedFpRate(layers.back().shape(), capacity);
        ASSERT_TRUE(newest.ok()) << newest.status();
        const double expected = 1 - full_pass * (1 - *newest);
        EXPECT_LE(expected, p) << layers.size() << " layers";
        worst = std::max(worst, expected);
        full_pass *= 1 - *newest;
        if (capacity > UINT64_MAX / expansion / 4) break;
        capacity *= expansion;
      }
      EXPECT_GE(layers.size(), expansion == 1 ? FilterStack::kMaxLayers : 10u);
      EXPECT_GT(worst, 0.9 * p);  // and not far below it: memory well spent
    }
  }
}

TEST(FilterStackTest, StacksOfEarlierVersionsGrowByHalving) {
  // Layer 0 at the asked rate leaves nothing to share: each new layer gets
  // half the previous one's rate, as before.
  FilterStack stack = MakeLegacyStack(Options(50, 0.02, 9), 0);
  GrowTo(stack, 5, "old-");
  for (size_t i = 0; i < stack.layers().size(); ++i) {
    EXPECT_DOUBLE_EQ(stack.layers()[i].fp_rate(),
                     0.02 / static_cast<double>(1 << i))
        << "layer " << i;
  }
  // A layer 0 that leaves less than kMinGrowthShare of the rate grows the
  // same way (a loaded file at about the rate asked for it).
  EXPECT_DOUBLE_EQ(FilterStack::GrowthLayerRate(0.01, 0.00995, 0.00995, 2, 1),
                   0.004975);
  // Otherwise the budget is shared.
  EXPECT_DOUBLE_EQ(FilterStack::GrowthLayerRate(0.01, 0.005, 0.005, 2, 1),
                   0.005 * 0.4);
}

// Every probe path answers alike on a deep stack: MayContain (one key,
// every layer's block prefetched), MayContainBatch (groups of keys x
// layers), and the adds' existence check (a held key answers 0).
TEST(FilterStackTest, PrefetchingProbesAgreeOnDeepStacks) {
  for (const uint32_t expansion : {1u, 2u}) {
    SCOPED_TRACE(absl::StrCat("expansion ", expansion));
    FilterStack stack = MakeStack(Options(64, 0.05, 11, expansion), 0);
    GrowTo(stack, expansion == 1 ? 40 : 12, "d-");
    const uint64_t held = stack.num_insertions();
    std::vector<std::string> keys;
    for (uint64_t i = 0; i < 20000; ++i) {
      keys.push_back(Key(i % 2 == 0 ? "d-" : "absent-", i / 2));
    }
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::unique_ptr<bool[]> batch(new bool[views.size()]);
    stack.MayContainBatch(views, batch.get());
    int positives = 0;
    for (size_t i = 0; i < keys.size(); ++i) {
      ASSERT_EQ(batch[i], stack.MayContain(keys[i])) << keys[i];
      if (i % 2 == 0 && i / 2 < held) {
        ASSERT_TRUE(batch[i]) << keys[i];
      }
      if (i % 2 == 1) positives += batch[i];
    }
    EXPECT_LT(positives, 10000 * 0.05 * 1.3);
    std::vector<absl::StatusOr<bool>> added;
    stack.AddBatch(
        std::vector<std::string_view>(views.begin(), views.begin() + 200),
        &added);
    ASSERT_EQ(added.size(), 200u);
    for (size_t i = 0; i < 200; ++i) {
      ASSERT_TRUE(added[i].ok()) << added[i].status();
      if (i % 2 == 0) {
        EXPECT_FALSE(*added[i]) << keys[i];
      }
      if (*added[i]) {
        EXPECT_FALSE(batch[i]) << keys[i];
      }
    }
  }
}

TEST(FilterStackTest, EstimatedFpRateCombinesTheLayers) {
  absl::StatusOr<FilterStack> stack =
      FilterStack::Create(Options(1000, 0.01, 1));
  ASSERT_TRUE(stack.ok()) << stack.status();
  EXPECT_EQ(stack->EstimatedFpRate(), 0);
  GrowTo(*stack, 3, "e-");
  double pass = 1;
  for (const Layer& layer : stack->layers()) {
    pass *= 1 - *EstimatedFpRate(layer.shape(), layer.count());
  }
  EXPECT_DOUBLE_EQ(stack->EstimatedFpRate(), 1 - pass);
  EXPECT_GT(stack->EstimatedFpRate(), 0.006);
  EXPECT_LT(stack->EstimatedFpRate(), 0.01);
}

}  // namespace
}  // namespace blockbloom::redis_module
