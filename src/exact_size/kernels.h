// Kernels (src/core/probe.h) of the per-data-block layouts that are not
// spread lanes: compressed fingerprint sets (FilterKind::kSet) and standard
// Bloom filters (FilterKind::kStandard, the in-place encoding). Scalar: neither
// probe has anything to vectorize.
#ifndef BLOCKBLOOM_SRC_EXACT_SIZE_KERNELS_H_
#define BLOCKBLOOM_SRC_EXACT_SIZE_KERNELS_H_

#include "src/core/probe.h"

namespace blockbloom::internal {

// For a FilterRef whose `view` is a SetIndex of `low_bits`-bit low
// parts. Probes only.
const Kernels* SetKernels(int low_bits);

// For a FilterRef of FilterKind::kStandard (StandardRef): the in-place probe
// (src/exact_size/in_place.h); writes through the reference.
const Kernels* StandardKernels();

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_EXACT_SIZE_KERNELS_H_
