// The blocked kind built from hashes held in one array, and the shape
// FilterBuilder gives it: for FilterBuilder, and for the kinds that fall
// back to it (a ribbon that would be the worse filter, or that no salt
// could build: src/ribbon/kind.cc).
#ifndef BLOCKBLOOM_SRC_CORE_BLOCKED_BUILD_H_
#define BLOCKBLOOM_SRC_CORE_BLOCKED_BUILD_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/filter.h"

namespace blockbloom::internal {

// The k a filter with no keys gets: any k answers "no" for every key, so
// the one a filter of these bits/key would have.
int DefaultProbes(double bits_per_key);

// The shape of a blocked filter of `num_keys` keys as `options` ask: the
// fixed shape, else sized by fp_rate or bits_per_key (blockbloom/sizing.h),
// one block of the narrowest lanes for no keys.
absl::StatusOr<FilterShape> BlockedShapeFor(uint64_t num_keys,
                                            const FilterOptions& options);

// The blocked filter of `hashes` (distinct) as `options` ask.
absl::StatusOr<Filter> BuildBlocked(absl::Span<const uint64_t> hashes,
                                    const FilterOptions& options);

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_BLOCKED_BUILD_H_
