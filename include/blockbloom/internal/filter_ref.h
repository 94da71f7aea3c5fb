// Implementation detail of blockbloom/filter.h; not part of the API.
#ifndef BLOCKBLOOM_INTERNAL_FILTER_REF_H_
#define BLOCKBLOOM_INTERNAL_FILTER_REF_H_

#include <cstdint>

namespace blockbloom::internal {

// Everything a probe needs. A Filter keeps one, and the kernels take it by
// reference, so a probe passes one pointer instead of building arguments.
struct SetIndex;  // src/packed/fingerprint_set.h

struct FilterRef {
  const uint8_t* bits;        // num_blocks * 2 * lane_bits bytes, any alignment
  uint64_t num_blocks;        // in [1, 2^32]
  const uint16_t* lane_sets;  // the layout's lane-set table row for k
  uint64_t seed;              // hash seed, for the keyed probes
  uint32_t lane_bits = 32;    // bits per lane: 32, or fewer for small filters
  // Set for filters of ONE block whose 16 lanes split `num_bits` bits as
  // evenly as possible (src/core/layout.h, "one-block filters"); 0 otherwise.
  uint32_t num_bits = 0;
  // Spread lanes of the packed encoding add the hash's high 32 bits to each
  // lane's mix (src/core/layout.h): a one-block filter has no block index to
  // spend them on, and without them every key's pattern would be a function
  // of 32 bits (false positives of at least n / 2^32). The small-filter
  // layout of format version 1 does not.
  bool mix_high = false;
  // Set (to k) for a standard Bloom filter of `num_bits` bits: k bits
  // anywhere, no lanes (src/core/layout.h, "In-place filters"); 0 otherwise.
  uint32_t standard_probes = 0;
  // A compressed fingerprint set instead of a Bloom filter (src/
  // fingerprint_set.h): its probe index; null for Bloom filters.
  const SetIndex* set = nullptr;
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_INTERNAL_FILTER_REF_H_
