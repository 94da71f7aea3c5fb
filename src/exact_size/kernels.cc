#include "src/exact_size/kernels.h"

// The static target's copy of the kernel adapters (no foreach_target: these
// probes are scalar).
#include <hwy/highway.h>

#include "src/core/kind.h"
#include "src/core/probe_adapters-inl.h"
#include "src/exact_size/fingerprint_set.h"
#include "src/exact_size/in_place.h"

namespace blockbloom::internal {
namespace {

// Sets: scalar code (the probe is a handful of word operations, nothing to
// vectorize), one table for byte-wide low parts and one for 16-bit ones.
template <typename LowT>
bool SetProbeHash(const FilterRef& f, uint64_t hash) {
  return SetContains<LowT>(ViewOf<SetIndex>(f), hash);
}

template <typename LowT>
constexpr Kernels kSetKernels =
    HWY_NAMESPACE::AdaptedKernels<&SetProbeHash<LowT>>(/*writable=*/false,
                                                       "set");

// Standard Bloom filters (the in-place encoding): the probe LevelDB's
// adapter inlines, so that a Filter opened on the same bytes answers with
// the very same code.
bool StandardProbeHash(const FilterRef& f, uint64_t hash) {
  return InPlaceMayContainHash(f.bits, f.num_bits / 8,
                               static_cast<int>(f.num_probes), hash);
}
constexpr Kernels kStandardKernels =
    HWY_NAMESPACE::AdaptedKernels<&StandardProbeHash>(/*writable=*/true,
                                                      "in-place");

}  // namespace

const Kernels* SetKernels(int low_bits) {
  return low_bits <= 8 ? &kSetKernels<uint8_t> : &kSetKernels<uint16_t>;
}

const Kernels* StandardKernels() { return &kStandardKernels; }

}  // namespace blockbloom::internal
