// Kernels for filters that are not blocks of 32-bit lanes: one-block
// filters with spread lanes (the small-filter layout and the accurate kSpread
// layout; SIMD, src/core/probe_small.cc) and blocked filters of other lane
// widths (the scalar reference). The kernels of fingerprint sets and
// standard Bloom filters are in src/exact_size/kernels.h.
#ifndef BLOCKBLOOM_SRC_CORE_PROBE_SMALL_H_
#define BLOCKBLOOM_SRC_CORE_PROBE_SMALL_H_

#include <cstdint>

#include "src/core/probe.h"

namespace blockbloom::internal {

// For a FilterRef of FilterKind::kSpread (SpreadRef): a gather of the key's k
// words on every SIMD target when the filter has at least 4 bytes (the
// gathers read 4 bytes at a time, never past the filter), the scalar
// reference below that. Probes only: insert and add go through the
// reference.
const Kernels* SpreadKernels(uint64_t size_bytes);

// The scalar reference for blocked filters of any lane width.
const Kernels* ScalarLaneKernels();

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_PROBE_SMALL_H_
