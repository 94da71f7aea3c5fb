// Implementation detail of blockbloom/filter.h; not part of the API.
#ifndef BLOCKBLOOM_INTERNAL_FILTER_REF_H_
#define BLOCKBLOOM_INTERNAL_FILTER_REF_H_

#include <cstdint>

namespace blockbloom {
enum class FilterKind : uint8_t;  // blockbloom/filter.h
}  // namespace blockbloom

namespace blockbloom::internal {

struct KindOps;  // src/core/kind.h

// Everything a probe needs. A Filter keeps one, and the kernels take it by
// reference, so a probe passes one pointer instead of building arguments.
// 64 bytes, one cache line (the probe cache's entries hold one: keep it so).
// `kind` says how the probe reads the bits, and which fields below it
// applies to; src/core/layout.h makes the refs of the kinds the core probes
// (BlockedRef, OneBlockView, SpreadRef, StandardRef), each other kind's
// folder its own.
struct FilterRef {
  const uint8_t* bits;        // the filter's bits, any alignment
  uint64_t num_blocks;        // kBlocked: in [1, 2^32]; the others: 1
  const uint16_t* lane_sets;  // kBlocked, kSpread: the lane-set table row for k
  uint64_t seed;              // hash seed, for the keyed probes
  uint32_t lane_bits = 32;    // kBlocked: bits per lane (32, or fewer for
                              // one-block small filters)
  FilterKind kind{};          // kBlocked (0) unless a maker says otherwise
  // kSpread: the lanes add the hash's high 32 bits to each lane's mix (the
  // accurate encoding): a one-block filter has no block index to spend them
  // on, and without them every key's pattern would be a function of 32 bits
  // (false positives of at least n / 2^32). The small filters of format
  // version 1 (one block of narrow lanes) do not.
  bool mix_high = false;
  // kSpread: ONE block whose 16 lanes split `num_bits` bits as evenly as
  // possible (src/core/layout.h, "one-block filters"); kStandard: the
  // filter's bits.
  uint32_t num_bits = 0;
  // kStandard: k, the bits per key anywhere in the filter (the other kinds'
  // k is in lane_sets).
  uint32_t num_probes = 0;
  // A kind's own probe data, prepared once per opened filter, of a type
  // its folder declares (a fingerprint set's index, a ribbon's layers): the
  // kind's kernels read it (src/core/kind.h, ViewOf), nothing else does.
  const void* view = nullptr;
  // The kind's operations (src/core/kind.h), for the kind-neutral code that
  // holds a filter: no probe reads them.
  const KindOps* ops = nullptr;
};
static_assert(sizeof(FilterRef) <= 64);

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_INTERNAL_FILTER_REF_H_
