// Which SIMD target blockbloom's dispatched kernels use: the rule, and the
// override (SetSimdTarget, blockbloom/filter.h; the environment variable
// BLOCKBLOOM_SIMD_TARGET).
//
// The rule: the widest target the CPU has, except that on Intel CPUs the
// 512-bit targets (Highway's AVX3, AVX3_DL) are left out when AVX2 is
// there. Inside RocksDB's db_bench on an Intel Xeon, Gets with the 512-bit
// probe ran slower than with the 256-bit one although the probe alone is
// faster at 512 bits: the 512-bit instructions slow the rest of the Get
// (docs/BENCHMARKS.md, "The SIMD target inside RocksDB"). A 64-byte block is
// two 256-bit vectors, so the 256-bit probe does the same work in two
// compares. On AMD CPUs (Zen 4 and later run 512-bit instructions as two
// 256-bit halves, without a frequency change) the 512-bit targets stay.
#ifndef BLOCKBLOOM_SRC_CORE_SIMD_TARGET_H_
#define BLOCKBLOOM_SRC_CORE_SIMD_TARGET_H_

#include <hwy/targets.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/status/status.h"

namespace blockbloom::internal {

// The Highway targets (bits of hwy::SupportedTargets()) the kernels may
// choose from now, best first: the override's one target if set, else the
// rule's. Read at every kernel choice (a filter's open or build), so that an
// override applies to the filters made after it.
int64_t AllowedTargets();

// The index of the best allowed target in a dispatch table of HWY_EXPORT
// in the including file (which is why it is inline: hwy::ChosenTarget's
// GetIndex masks with the targets compiled there). A ChosenTarget of our
// own over AllowedTargets(), not Highway's global one: a program's other
// Highway code keeps its own choice.
inline size_t ChosenIndex() {
  hwy::ChosenTarget chosen;
  chosen.Update(AllowedTargets());
  return chosen.GetIndex();
}

// The vector width of the best allowed target, in bits (512 for AVX3, 256
// for AVX2, 128 for SSE4 and NEON, 0 for none): the cap of kernels that
// choose their instruction set themselves (the ribbon's).
int AllowedVectorBits();

// SetSimdTarget's parsing: "AVX3", "AVX2", ... (hwy::TargetName's names,
// any case), "best" (the widest supported, 512-bit included) or "auto"
// (the rule).
absl::Status SetSimdTargetByName(std::string_view name);

// Why the kernels use what they use: "rule: ..." (with the rule's reason),
// "BLOCKBLOOM_SIMD_TARGET" or "SetSimdTarget".
const char* SimdTargetSource();

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_SIMD_TARGET_H_
