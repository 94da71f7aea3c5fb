// The SIMD target rule and its override (src/core/simd_target.h,
// SetSimdTarget in blockbloom/filter.h): the rule's choice on this CPU,
// every target this CPU has through the public call, the same answers on
// each, the ribbon's kernels capped at the same width, and the errors.
#include "src/core/simd_target.h"

#include <hwy/highway.h>
#include <hwy/targets.h>

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "blockbloom/filter.h"
#include "gtest/gtest.h"
#include "src/ribbon/kernels.h"
#include "src/ribbon/ribbon_filter.h"

namespace blockbloom {
namespace {

std::vector<uint64_t> RandomHashes(size_t n, uint64_t seed) {
  std::vector<uint64_t> out(n);
  for (uint64_t& h : out) {  // splitmix64
    uint64_t z = (seed += 0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    h = z ^ (z >> 31);
  }
  return out;
}

// Every target this CPU and build have, best first.
std::vector<int64_t> Targets() { return hwy::SupportedAndGeneratedTargets(); }

bool IsAmd() {
  __builtin_cpu_init();
  return __builtin_cpu_is("amd");
}

// Restores the rule after each test.
class SimdTargetTest : public ::testing::Test {
 protected:
  void TearDown() override { ASSERT_TRUE(SetSimdTarget("auto").ok()); }
};

TEST_F(SimdTargetTest, TheRuleLeavesOut512BitVectorsOnIntel) {
  ASSERT_TRUE(SetSimdTarget("auto").ok());
  const std::vector<int64_t> targets = Targets();
  ASSERT_FALSE(targets.empty());
  bool has_avx2 = false;
  for (int64_t t : targets) has_avx2 |= t == HWY_AVX2;
  std::string expected = hwy::TargetName(targets[0]);
  if (has_avx2 && !IsAmd()) expected = "AVX2";
  EXPECT_EQ(ActiveSimdTarget(), expected);
  EXPECT_NE(std::string(internal::SimdTargetSource()).find("rule"),
            std::string::npos);
}

TEST_F(SimdTargetTest, EveryTargetOfThisCpuCanBeChosenAndAnswersAlike) {
  const std::vector<uint64_t> keys = RandomHashes(5000, 1);
  FilterOptions options;
  options.bits_per_key = 10;
  FilterBuilder builder = *FilterBuilder::Create(options);
  for (uint64_t h : keys) builder.AddHash(h);
  const absl::StatusOr<Filter> built = builder.Finish();
  ASSERT_TRUE(built.ok()) << built.status();
  const std::vector<uint8_t> bytes(built->bits().begin(), built->bits().end());
  const std::vector<uint64_t> probes = RandomHashes(20000, 2);
  std::vector<bool> expected;
  for (uint64_t h : probes) expected.push_back(built->MayContainHash(h));
  for (int64_t target : Targets()) {
    const std::string name = hwy::TargetName(target);
    SCOPED_TRACE(name);
    // Any case.
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(c));
    ASSERT_TRUE(SetSimdTarget(lower).ok());
    EXPECT_EQ(ActiveSimdTarget(), name);
    EXPECT_STREQ(internal::SimdTargetSource(), "SetSimdTarget");
    // A filter made now probes with it, with the same answers.
    absl::StatusOr<Filter> f =
        Filter::Wrap(bytes, built->shape(), built->seed(), keys.size());
    ASSERT_TRUE(f.ok()) << f.status();
    for (size_t i = 0; i < probes.size(); ++i) {
      ASSERT_EQ(f->MayContainHash(probes[i]), expected[i]) << i;
    }
    for (uint64_t h : keys) ASSERT_TRUE(f->MayContainHash(h));
  }
  ASSERT_TRUE(SetSimdTarget("best").ok());
  EXPECT_EQ(ActiveSimdTarget(), std::string(hwy::TargetName(Targets()[0])));
}

TEST_F(SimdTargetTest, TheRibbonKernelsFollowTheWidth) {
  using internal::ribbon::ActiveIsa;
  using internal::ribbon::BestIsa;
  using internal::ribbon::Isa;
  ASSERT_TRUE(SetSimdTarget("best").ok());
  EXPECT_EQ(ActiveIsa(), BestIsa());
  for (int64_t target : Targets()) {
    ASSERT_TRUE(SetSimdTarget(hwy::TargetName(target)).ok());
    const int bits = internal::AllowedVectorBits();
    SCOPED_TRACE(hwy::TargetName(target));
    if (bits < 512) {
      EXPECT_LE(ActiveIsa(), Isa::kAvx2);
    }
    if (bits < 256) {
      EXPECT_LE(ActiveIsa(), Isa::kPopcnt);
    }
    if (bits < 128) {
      EXPECT_EQ(ActiveIsa(), Isa::kPlain);
    }
  }
}

TEST_F(SimdTargetTest, AnUnknownOrMissingTargetIsAnError) {
  const absl::Status s = SetSimdTarget("avx1024");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  // The message names what this CPU has.
  EXPECT_NE(s.message().find(hwy::TargetName(Targets()[0])),
            absl::string_view::npos)
      << s;
  // The choice is unchanged.
  EXPECT_NE(std::string(internal::SimdTargetSource()).find("rule"),
            std::string::npos);
  if ((hwy::SupportedTargets() & HWY_AVX3) == 0) {
    EXPECT_EQ(SetSimdTarget("AVX3").code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace blockbloom
