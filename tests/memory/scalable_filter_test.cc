// ScalableFilter: grows past its initial capacity with the stack's false-
// positive rate under the target (100x the initial capacity inserted), stops
// at the memory cap with a clear error, and serializes its stack.
#include "blockbloom/scalable_filter.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/memory/memory_test_util.h"

namespace blockbloom {
namespace {

using ::testing::HasSubstr;

ScalableFilterOptions Options(uint64_t initial, double fp_rate,
                              uint64_t seed = 1) {
  ScalableFilterOptions o;
  o.initial_capacity = initial;
  o.fp_rate = fp_rate;
  o.seed = seed;
  return o;
}

ScalableFilter Make(const ScalableFilterOptions& o) {
  return testing::Created(ScalableFilter::Create(o));
}

std::string Key(uint64_t i) { return absl::StrCat("url:", i); }

struct GrowthCase {
  double fp_rate;
  double expansion;
  double tightening;
};

class ScalableGrowthTest : public ::testing::TestWithParam<GrowthCase> {};

INSTANTIATE_TEST_SUITE_P(Configs, ScalableGrowthTest,
                         ::testing::Values(GrowthCase{0.01, 2, 0.5},
                                           GrowthCase{0.001, 4, 0.5},
                                           GrowthCase{0.01, 2, 0.9}));

TEST_P(ScalableGrowthTest, HundredTimesInitialCapacityStaysUnderTarget) {
  const GrowthCase c = GetParam();
  const uint64_t initial = 5'000;
  const uint64_t n = 100 * initial;
  ScalableFilterOptions o = Options(initial, c.fp_rate, 7);
  o.expansion = c.expansion;
  o.tightening = c.tightening;
  ScalableFilter f = Make(o);
  uint64_t added = 0;
  for (uint64_t i = 0; i < n; ++i) {
    absl::StatusOr<bool> a = f.Add(Key(i));
    ASSERT_TRUE(a.ok()) << a.status();
    added += *a;
  }
  EXPECT_EQ(f.num_insertions(), added);
  EXPECT_GE(f.capacity(), added);
  for (uint64_t i = 0; i < n; i += 7) ASSERT_TRUE(f.MayContain(Key(i)));

  const int probes = 1'000'000;
  const auto [measured, expected, sigma] =
      testing::MeasureFpRate(f, probes, "absent:");
  std::printf(
      "fp_rate %g expansion %g tightening %g: %llu keys in %zu layers, %.2f "
      "MiB (%.2f bits/key), measured FPR %.4f%%, EstimatedFpRate %.4f%% "
      "(%+.2f sigma)\n",
      c.fp_rate, c.expansion, c.tightening,
      static_cast<unsigned long long>(added), f.num_layers(),
      static_cast<double>(f.size_bytes()) / (1 << 20),
      8.0 * static_cast<double>(f.size_bytes()) / static_cast<double>(added),
      100 * measured, 100 * expected, (measured - expected) / sigma);
  EXPECT_LT(measured, c.fp_rate);
  EXPECT_LT(expected, c.fp_rate);
  EXPECT_LE(std::abs(measured - expected), 3 * sigma);
}

TEST(ScalableFilterTest, LayersGrowGeometricallyWithTighterRates) {
  ScalableFilter f = Make(Options(1000, 0.01));
  for (uint64_t i = 0; i < 20'000; ++i) ASSERT_TRUE(f.Add(Key(i)).ok());
  ASSERT_EQ(f.num_layers(), 5u);  // 1000 + 2000 + 4000 + 8000 + 16000
  double bits_per_key = 0;
  for (size_t i = 0; i < f.num_layers(); ++i) {
    EXPECT_EQ(f.layer_capacity(i), 1000u << i);
    EXPECT_EQ(f.layer(i).seed(), f.seed());
    const double b = 8.0 * static_cast<double>(f.layer(i).size_bytes()) /
                     static_cast<double>(f.layer_capacity(i));
    EXPECT_GT(b, bits_per_key);  // tighter rates, more bits per key
    bits_per_key = b;
    // Full layers hold their capacity, at no more than their rate.
    if (i + 1 < f.num_layers()) {
      EXPECT_EQ(f.layer(i).num_insertions(), f.layer_capacity(i));
      EXPECT_LE(f.layer(i).EstimatedFpRate(),
                0.01 * 0.5 * std::pow(0.5, static_cast<double>(i)) * 1.1);
    }
  }
}

TEST(ScalableFilterTest, DuplicatesAreNotAddedAgain) {
  ScalableFilter f = Make(Options(100, 0.01));
  for (int round = 0; round < 3; ++round) {
    for (uint64_t i = 0; i < 1000; ++i) {
      absl::StatusOr<bool> a = f.Add(Key(i));
      ASSERT_TRUE(a.ok());
      if (round > 0) {
        ASSERT_FALSE(*a);
      }
    }
  }
  EXPECT_LE(f.num_insertions(), 1000u);
  EXPECT_GT(f.num_insertions(), 980u);
  EXPECT_EQ(f.num_layers(), 4u);  // 100+200+400+800 >= 1000
}

TEST(ScalableFilterTest, MemoryCapGivesAClearError) {
  ScalableFilterOptions o = Options(1000, 0.01);
  o.max_bytes = 16 << 10;  // 16 KiB
  ScalableFilter f = Make(o);
  absl::Status error;
  uint64_t i = 0;
  for (; i < 1'000'000; ++i) {
    absl::StatusOr<bool> a = f.Add(Key(i));
    if (!a.ok()) {
      error = a.status();
      break;
    }
  }
  ASSERT_FALSE(error.ok()) << "never hit the cap";
  EXPECT_EQ(error.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(error.message(), HasSubstr("max_bytes"));
  EXPECT_THAT(error.message(), HasSubstr("scalable filter is full"));
  std::printf("cap error after %llu keys: %s\n",
              static_cast<unsigned long long>(i),
              std::string(error.message()).c_str());
  EXPECT_LE(f.size_bytes(), o.max_bytes);
  // The key was not added; the others are still there, and the filter
  // keeps answering (and accepting duplicates, which need no new layer).
  EXPECT_FALSE(f.MayContain(Key(i)));
  for (uint64_t j = 0; j < i; ++j) ASSERT_TRUE(f.MayContain(Key(j)));
  absl::StatusOr<bool> again = f.Add(Key(0));
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  EXPECT_EQ(f.Add(Key(i)).status().code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(ScalableFilterTest, HugeInitialReservationIsRefusedUpFront) {
  // RedisBloom users hit OOM from BF.RESERVE with a huge capacity; here the
  // first layer is checked against the cap before anything is allocated.
  ScalableFilterOptions o = Options(2'000'000'000, 0.001);
  absl::StatusOr<ScalableFilter> f = ScalableFilter::Create(o);
  EXPECT_EQ(f.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(f.status().message(), HasSubstr("first layer"));
  EXPECT_THAT(f.status().message(), HasSubstr("initial_capacity"));
}

TEST(ScalableFilterTest, InvalidOptions) {
  auto code = [](ScalableFilterOptions o) {
    return ScalableFilter::Create(o).status().code();
  };
  ScalableFilterOptions o = Options(0, 0.01);
  EXPECT_EQ(code(o), absl::StatusCode::kInvalidArgument);
  o = Options(10, 0);
  EXPECT_EQ(code(o), absl::StatusCode::kInvalidArgument);
  o = Options(10, 0.01);
  o.expansion = 0.5;
  EXPECT_EQ(code(o), absl::StatusCode::kInvalidArgument);
  o.expansion = 2;
  o.tightening = 1;
  EXPECT_EQ(code(o), absl::StatusCode::kInvalidArgument);
  o.tightening = 0.5;
  o.max_bytes = 0;
  EXPECT_EQ(code(o), absl::StatusCode::kInvalidArgument);
  // A random seed by default.
  EXPECT_NE(Make(ScalableFilterOptions()).seed(),
            Make(ScalableFilterOptions()).seed());
}

TEST(ScalableFilterTest, ClearKeepsOneEmptyLayer) {
  ScalableFilter f = Make(Options(100, 0.01));
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_TRUE(f.Add(Key(i)).ok());
  ASSERT_GT(f.num_layers(), 1u);
  f.Clear();
  EXPECT_EQ(f.num_layers(), 1u);
  EXPECT_EQ(f.num_insertions(), 0u);
  EXPECT_EQ(f.size_bytes(), f.layer(0).size_bytes());
  EXPECT_FALSE(f.MayContain(Key(1)));
  EXPECT_TRUE(*f.Add(Key(1)));
}

TEST(ScalableFilterTest, SerializedChainRoundTripsAndKeepsGrowing) {
  ScalableFilter f = Make(Options(500, 0.01, 99));
  for (uint64_t i = 0; i < 3000; ++i) ASSERT_TRUE(f.Add(Key(i)).ok());
  for (Compression compression : {Compression::kNone, Compression::kZstd}) {
    WriteOptions w;
    w.compression = compression;
    absl::StatusOr<std::string> bytes = f.Serialize(w);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    absl::StatusOr<ScalableFilter> back =
        ScalableFilter::Deserialize(AsBytes(*bytes));
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->num_layers(), f.num_layers());
    EXPECT_EQ(back->num_insertions(), f.num_insertions());
    EXPECT_EQ(back->seed(), 99u);
    for (size_t i = 0; i < f.num_layers(); ++i) {
      EXPECT_EQ(back->layer_capacity(i), f.layer_capacity(i));
      EXPECT_THAT(back->layer(i).bits(),
                  ::testing::ElementsAreArray(f.layer(i).bits()));
    }
    // Both continue identically.
    absl::StatusOr<ScalableFilter> twin =
        ScalableFilter::Deserialize(AsBytes(*f.Serialize()));
    ASSERT_TRUE(twin.ok());
    for (uint64_t i = 3000; i < 6000; ++i) {
      ASSERT_TRUE(back->Add(Key(i)).ok());
      ASSERT_TRUE(twin->Add(Key(i)).ok());
    }
    EXPECT_EQ(*back->Serialize(), *twin->Serialize());
  }
}

TEST(ScalableFilterTest, DamagedChainsAreRejected) {
  ScalableFilter f = Make(Options(200, 0.01));
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_TRUE(f.Add(Key(i)).ok());
  const std::string bytes = *f.Serialize();
  // Every single-byte change in a sample of positions, and truncations.
  for (size_t at = 0; at < bytes.size(); at += 37) {
    std::string bad = bytes;
    bad[at] ^= 0x20;
    absl::StatusOr<ScalableFilter> r =
        ScalableFilter::Deserialize(AsBytes(bad));
    ASSERT_FALSE(r.ok()) << "byte " << at;
    ASSERT_THAT(r.status().code(),
                ::testing::AnyOf(absl::StatusCode::kDataLoss,
                                 absl::StatusCode::kUnimplemented))
        << at;
  }
  for (size_t len : {size_t{0}, size_t{10}, size_t{63}, bytes.size() / 2,
                     bytes.size() - 1}) {
    EXPECT_EQ(ScalableFilter::Deserialize(AsBytes(bytes.substr(0, len)))
                  .status()
                  .code(),
              absl::StatusCode::kDataLoss)
        << len;
  }
  std::string newer = bytes;
  newer[4] = 2;
  EXPECT_EQ(ScalableFilter::Deserialize(AsBytes(newer)).status().code(),
            absl::StatusCode::kUnimplemented);
  // A cap below what the stack holds.
  EXPECT_EQ(ScalableFilter::Deserialize(AsBytes(bytes), 1000).status().code(),
            absl::StatusCode::kResourceExhausted);
  // Unverified reading still checks the structure.
  ReadOptions unverified;
  unverified.verify_checksum = false;
  EXPECT_TRUE(ScalableFilter::Deserialize(
                  AsBytes(bytes), ScalableFilterOptions().max_bytes, unverified)
                  .ok());
}

}  // namespace
}  // namespace blockbloom
