#include "src/core/blocked_build.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "blockbloom/sizing.h"
#include "src/core/aligned_buffer.h"
#include "src/core/filter_access.h"
#include "src/core/layout.h"
#include "src/core/probe.h"

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
  absl::StatusOr<FilterShape> shape = BlockedShapeFor(hashes.size(), options);
  if (!shape.ok()) return shape.status();
  absl::StatusOr<std::unique_ptr<AlignedBuffer>> bits =
      AlignedBuffer::Create(shape->size_bytes());
  if (!bits.ok()) return bits.status();
  uint8_t* data = (*bits)->data();
  const Kernels* kernels = KernelsFor(static_cast<uint32_t>(shape->lane_bits));
  kernels->insert(BlockedRef(data, *shape, options.seed), data, hashes.data(),
                  hashes.size());
  return FilterAccess::MakeBlocked(*std::move(bits), data, *shape, options.seed,
                                   hashes.size());
}

}  // namespace blockbloom::internal
