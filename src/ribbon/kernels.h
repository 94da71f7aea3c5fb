// The probe kernels of ribbon filters (src/core/probe.h's Kernels: probes
// only, writers null), one table per instruction set and number of result
// bits r, chosen once when a filter is made. The library is compiled for
// baseline x86-64: the SIMD variants are functions with target attributes,
// picked with __builtin_cpu_supports (no -march flag; Highway has no
// VPOPCNTQ in 1.0.3, and these kernels need nothing else of it).
#ifndef BLOCKBLOOM_SRC_RIBBON_KERNELS_H_
#define BLOCKBLOOM_SRC_RIBBON_KERNELS_H_

#include "src/core/probe.h"

namespace blockbloom::internal::ribbon {

enum class Isa : int {
  kPlain = 0,   // baseline x86-64: parity by folding
  kPopcnt = 1,  // POPCNT
  kAvx2 = 2,    // AVX2 + BMI1/2 + POPCNT
  kAvx512 = 3,  // AVX-512F + VPOPCNTDQ + BMI1/2 + POPCNT
};
inline constexpr int kNumIsas = 4;

// The best the CPU supports, and whether it supports one.
Isa BestIsa();
bool IsaSupported(Isa isa);
const char* IsaName(Isa isa);  // "plain", "popcnt", "avx2", "avx512"

// The kernels of a filter with `num_layers` layers and r = `result_bits`
// (1 .. 31) for `isa` (which the CPU must support): the batch ones compute
// 32 keys' positions and prefetch their words and codes before they test
// any. A filter of no layers gets kernels that answer "no".
const Kernels* QueryKernels(int num_layers, int result_bits, Isa isa);

}  // namespace blockbloom::internal::ribbon

#endif  // BLOCKBLOOM_SRC_RIBBON_KERNELS_H_
