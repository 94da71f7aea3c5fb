// Which SIMD target the dispatched kernels use (simd_target.h).
#include "src/core/simd_target.h"

#include <hwy/highway.h>
#include <hwy/targets.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace blockbloom::internal {
namespace {

// The targets of 512-bit vectors Highway 1.0.3 has on x86.
#if HWY_ARCH_X86
constexpr int64_t k512BitTargets = HWY_AVX3 | HWY_AVX3_DL;
#else
constexpr int64_t k512BitTargets = 0;
#endif

enum class Source : int { kRule, kEnvironment, kCall };

// 0: the rule; else one target bit, or kBest.
constexpr int64_t kBest = -1;
std::atomic<int64_t> forced{0};
std::atomic<int> source{static_cast<int>(Source::kRule)};

bool CpuIsAmd() {
#if HWY_ARCH_X86 && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return __builtin_cpu_is("amd");
#else
  return false;
#endif
}

int64_t RuleTargets(int64_t supported) {
  static const bool amd = CpuIsAmd();
  if (amd) return supported;
  const int64_t narrower = supported & ~k512BitTargets;
#if HWY_ARCH_X86
  if ((narrower & HWY_AVX2) != 0) return narrower;
#endif
  return supported;
}

// What the CPU supports, detected once: Highway 1.0.3's SupportedTargets()
// re-detects at every call (CPUID, which under a hypervisor is a VM exit:
// 30 us per call measured here), and kernels are chosen at every filter
// open. A test that mocks the targets (hwy::SetSupportedTargetsForTest,
// then an Update of Highway's global choice, tests/hwy_targets.h) shows as
// a global choice other than the detected one: then the mock is asked,
// which returns without detecting. A program's hwy::DisableTargets made
// before the first filter masks this one detection; one made later is not
// seen (the detection is kept): such a program calls SetSimdTarget.
int64_t Supported() {
  static const int64_t detected = hwy::SupportedTargets();
  const hwy::ChosenTarget& global = hwy::GetChosenTarget();
  if (global.IsInitialized()) {
    hwy::ChosenTarget ours;
    ours.Update(detected);
    if (ours.GetIndex() != global.GetIndex()) return hwy::SupportedTargets();
  }
  return detected;
}

// Abseil 20220623 has its own string_view: names compared as std::string.
std::string Lower(std::string_view s) {
  return absl::AsciiStrToLower(std::string(s));
}

// The target named `name` (lower case), 0 if none.
int64_t TargetNamed(const std::string& name) {
  for (int i = 0; i < 63; ++i) {
    const int64_t bit = int64_t{1} << i;
    if (Lower(hwy::TargetName(bit)) == name) return bit;
  }
  return 0;
}

std::string SupportedNames(int64_t supported) {
  std::string out;
  for (int64_t t = supported & HWY_TARGETS; t != 0; t &= t - 1) {
    absl::StrAppend(&out, out.empty() ? "" : ", ", hwy::TargetName(t & -t));
  }
  return out;
}

absl::Status Set(std::string_view given, Source from) {
  const std::string name = Lower(given);
  int64_t target = 0;
  if (name == "auto") {
    from = Source::kRule;
  } else if (name == "best") {
    target = kBest;
  } else {
    target = TargetNamed(name);
    const int64_t supported = Supported() & HWY_TARGETS;
    if (target == 0 || (target & supported) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SIMD target \"", std::string(given),
          "\" is not one this CPU and build have (", SupportedNames(supported),
          ", or \"best\" or \"auto\")"));
    }
  }
  forced.store(target);
  source.store(static_cast<int>(from));
  return absl::OkStatus();
}

// BLOCKBLOOM_SIMD_TARGET, read once, before the first choice. A bad value
// keeps the rule and says so on stderr (there is no caller to tell).
void ReadEnvironmentOnce() {
  static const bool read = [] {
    const char* value = std::getenv("BLOCKBLOOM_SIMD_TARGET");
    if (value == nullptr || *value == '\0') return true;
    if (const absl::Status s = Set(value, Source::kEnvironment); !s.ok()) {
      std::fprintf(stderr, "blockbloom: BLOCKBLOOM_SIMD_TARGET ignored: %s\n",
                   std::string(s.message()).c_str());
    }
    return true;
  }();
  (void)read;
}

}  // namespace

int64_t AllowedTargets() {
  ReadEnvironmentOnce();
  const int64_t supported = Supported();
  const int64_t f = forced.load(std::memory_order_relaxed);
  if (f == kBest) return supported;
  if (f != 0 && (f & supported) != 0) return f;
  return RuleTargets(supported);
}

int AllowedVectorBits() {
  const int64_t allowed = AllowedTargets();
  const int64_t best = allowed & -allowed;
#if HWY_ARCH_X86
  if ((best & k512BitTargets) != 0) return 512;
  if (best == HWY_AVX2) return 256;
  if ((best & (HWY_SSE4 | HWY_SSSE3)) != 0) return 128;
#elif HWY_ARCH_ARM
  if ((best & HWY_NEON) != 0) return 128;
#endif
  return 0;
}

absl::Status SetSimdTargetByName(std::string_view name) {
  ReadEnvironmentOnce();
  return Set(name, Source::kCall);
}

const char* SimdTargetSource() {
  ReadEnvironmentOnce();
  switch (static_cast<Source>(source.load())) {
    case Source::kEnvironment:
      return "BLOCKBLOOM_SIMD_TARGET";
    case Source::kCall:
      return "SetSimdTarget";
    case Source::kRule:
      break;
  }
  return CpuIsAmd() ? "rule: widest target (AMD CPU)"
                    : "rule: 256-bit vectors where AVX2 exists (not AMD)";
}

}  // namespace blockbloom::internal
