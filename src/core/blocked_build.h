// The blocked kind built from hashes held in one array, and the shape
// FilterBuilder gives it: for FilterBuilder, and for the kinds that fall
// back to it (a ribbon that would be the worse filter, or that no salt
// could build: src/ribbon/kind.cc).
#ifndef BLOCKBLOOM_SRC_CORE_BLOCKED_BUILD_H_
#define BLOCKBLOOM_SRC_CORE_BLOCKED_BUILD_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "src/core/aligned_buffer.h"
#include "src/core/filter_access.h"
#include "src/core/layout.h"
#include "src/core/probe.h"

namespace blockbloom::internal {

// The k a filter with no keys gets: any k answers "no" for every key, so
// the one a filter of these bits/key would have.
int DefaultProbes(double bits_per_key);

// The shape of a blocked filter of `num_keys` keys as `options` ask: the
// fixed shape, else sized by fp_rate or bits_per_key (blockbloom/sizing.h),
// one block of the narrowest lanes for no keys.
absl::StatusOr<FilterShape> BlockedShapeFor(uint64_t num_keys,
                                            const FilterOptions& options);

// The blocked filter of `num_keys` distinct keys as `options` ask, its
// hashes inserted by feed(insert), where insert(hashes, n) puts n of them
// in: from one array (BuildBlocked) or a chunk at a time (FilterBuilder,
// which frees each chunk once inserted).
template <typename Feed>
absl::StatusOr<Filter> BuildBlockedFrom(uint64_t num_keys,
                                        const FilterOptions& options,
                                        Feed feed) {
  absl::StatusOr<FilterShape> shape = BlockedShapeFor(num_keys, options);
  if (!shape.ok()) return shape.status();
  absl::StatusOr<std::unique_ptr<AlignedBuffer>> bits =
      AlignedBuffer::Create(shape->size_bytes());
  if (!bits.ok()) return bits.status();
  uint8_t* data = (*bits)->data();
  const Kernels* kernels = KernelsFor(static_cast<uint32_t>(shape->lane_bits));
  const FilterRef ref = BlockedRef(data, *shape, options.seed);
  feed([&](const uint64_t* h, size_t n) { kernels->insert(ref, data, h, n); });
  return FilterAccess::MakeBlocked(*std::move(bits), data, *shape, options.seed,
                                   num_keys);
}

// The blocked filter of `hashes` (distinct) as `options` ask.
absl::StatusOr<Filter> BuildBlocked(absl::Span<const uint64_t> hashes,
                                    const FilterOptions& options);

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_BLOCKED_BUILD_H_
