// Building a ribbon filter from its keys' hashes: layer by layer, sort
// (sort.h), band (banding.h) and hand the bumped keys to the next layer;
// then choose r and each layer's upper start for the asked rate or budget,
// and back-substitute (back_substitution.h) into the payload.
//
// Memory (the peak, per key, 10k to 10M keys; the prototype's operator-new
// hook, mmap'ed scratch included): the caller's 64-bit hashes, 64 bits of
// coefficient rows per slot (which are also the radix sort's buffer), 16 bits
// of result rows per slot (32 from r + 1 > 16 columns), and the filter
// itself: ~160 bits per key against ~235 for RocksDB 7.8.3's Ribbon builder.
// Scratch of 2 MiB and more is on transparent huge pages (AlignedBuffer): on
// the measured VM first touches of 4 KiB pages are slow, and at 10M keys
// huge pages cut the build's time and its page faults by a large factor.
//
// Time (hashing included, against RocksDB's Ribbon at the same rate,
// docs/BENCHMARKS.md, "Ribbon kind"): layer-0 banding dominates, then the
// sort, back substitution and output, and the other layers.
#ifndef BLOCKBLOOM_SRC_RIBBON_BUILDER_H_
#define BLOCKBLOOM_SRC_RIBBON_BUILDER_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "src/ribbon/kernels.h"

namespace blockbloom::internal::ribbon {

// The size asked for: a rate, or a budget.
struct RibbonTarget {
  // If > 0 (and < 1): the fewest columns whose exact expected rate is at
  // most this. Every layer's share of r + 1-column starts is chosen from
  // its non-bumped starts, so the exact rate of the filter is <= fp_rate.
  double fp_rate = 0;
  // Otherwise: bits of payload per key (codes included; the format's
  // trailer not), fractional values fine. The payload is at most
  // bits_per_key * n / 8 bytes, except where one 64-slot block per layer
  // and one column are more (a few hundred keys and fewer).
  double bits_per_key = 10;
};

// Choices tests and benchmarks force; the defaults are the measured best.
struct RibbonBuildOptions {
  Isa isa = BestIsa();  // back substitution
  int streams = 0;      // 0: StreamsFor (banding.h); 1 .. 4: layer 0's
  int pre_bump = -1;    // -1: PreBumps(n) (layout.h); 0: never; 1: always
};

// The salts tried before a build gives up: a build needs a second salt so
// rarely (0 retries in 30,000 random builds of 1 to 300k keys) that four
// only guard against pathological key sets.
inline constexpr int kMaxAttempts = 4;

// Builds a ribbon filter of `hashes` (HashKey(key, seed) of each key; any
// number, duplicates adjacent or not are fine) that owns its payload.
// `hashes` is scratch: it comes back permuted, the same multiset, so that a
// caller can build another kind from it. FailedPrecondition if no salt gave
// a filter of at most kMaxLayers layers (the caller falls back to another
// kind), OutOfRange for 2^31 keys or more, ResourceExhausted without memory.
absl::StatusOr<Filter> BuildRibbon(absl::Span<uint64_t> hashes,
                                   const RibbonTarget& target, uint64_t seed,
                                   const RibbonBuildOptions& options = {});

}  // namespace blockbloom::internal::ribbon

#endif  // BLOCKBLOOM_SRC_RIBBON_BUILDER_H_
