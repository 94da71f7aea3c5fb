#include "src/core/kind.h"

#include <cstring>

#include "blockbloom/sizing.h"

namespace blockbloom::internal {
namespace {

double BlockedFpRate(const FilterRef&, const FilterShape& shape,
                     uint64_t num_keys) {
  return blockbloom::EstimatedFpRate(shape, num_keys).value_or(1.0);
}

}  // namespace

size_t BitsCopyBytes(const FilterRef&, absl::Span<const uint8_t> bits) {
  return bits.size();
}

FilterRef CopyBits(const FilterRef& ref, absl::Span<const uint8_t> bits,
                   uint8_t* at) {
  if (!bits.empty()) std::memcpy(at, bits.data(), bits.size());
  FilterRef copy = ref;
  copy.bits = at;
  return copy;
}

const KindOps kBlockedOps = {FilterKind::kBlocked, &BlockedFpRate,
                             &BitsCopyBytes, &CopyBits,
                             /*set_low_bits=*/nullptr};

}  // namespace blockbloom::internal
