#include "src/core/blocked_build.h"

#include <algorithm>
#include <cmath>

#include "blockbloom/sizing.h"

namespace blockbloom::internal {

int DefaultProbes(double bits_per_key) {
  const double k = std::round(bits_per_key * 0.6931);
  return static_cast<int>(std::clamp(k, 1.0, 16.0));
}

absl::StatusOr<FilterShape> BlockedShapeFor(uint64_t num_keys,
                                            const FilterOptions& options) {
  if (options.shape.num_blocks != 0) return options.shape;
  if (num_keys == 0) {
    // One block of the narrowest lanes allowed: 2 bytes, or 64.
    return FilterShape{1, DefaultProbes(options.bits_per_key),
                       options.compact_small_filters ? 1 : 32};
  }
  if (options.fp_rate != 0) {
    return ShapeForFpRate(num_keys, options.fp_rate,
                          options.compact_small_filters);
  }
  return ShapeForBitsPerKey(num_keys, options.bits_per_key,
                            options.compact_small_filters);
}

absl::StatusOr<Filter> BuildBlocked(absl::Span<const uint64_t> hashes,
                                    const FilterOptions& options) {
  return BuildBlockedFrom(hashes.size(), options, [&](auto insert) {
    insert(hashes.data(), hashes.size());
  });
}

}  // namespace blockbloom::internal
