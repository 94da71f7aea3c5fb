// The private parts of the public classes that the library's own code uses
// (builders, the probe cache, the engine adapters' inline probe), in one
// place instead of accessors in the public headers. Not part of the API.
#ifndef BLOCKBLOOM_SRC_CORE_FILTER_ACCESS_H_
#define BLOCKBLOOM_SRC_CORE_FILTER_ACCESS_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>

#include "blockbloom/filter.h"
#include "blockbloom/filter_policy.h"
#include "blockbloom/internal/probe_cache_config.h"
#include "src/core/aligned_buffer.h"
#include "src/core/probe.h"

namespace blockbloom::internal {

struct FilterAccess {
  static Filter Make(std::unique_ptr<AlignedBuffer> owned, Layout layout,
                     const FilterRef& ref, const FilterShape& shape,
                     uint64_t size_bytes, uint64_t num_keys,
                     const Kernels* kernels) {
    return Filter(std::move(owned), layout, ref, shape, size_bytes, num_keys,
                  kernels);
  }
  static void SetOwnsBits(Filter* filter, bool owns) {
    filter->owns_set_bits_ = owns;
  }
  // What Filter::MayContain(key) calls, and its argument.
  using ProbeKeyFn = bool (*)(const FilterRef&, std::string_view);
  static ProbeKeyFn ProbeKey(const Filter& filter) { return filter.probe_key_; }
  static const FilterRef& Ref(const Filter& filter) { return filter.ref_; }

  // A policy's per-thread cache settings (src/packed/probe_cache.h).
  static const ProbeCacheConfig& CacheConfig(const FilterPolicy& policy) {
    return policy.cache_;
  }
  // The last byte below which a block is probed in place: one past the
  // in-place tags for a packed policy, 0 (none) for any other.
  static uint8_t InPlaceTagEnd(const FilterPolicy& policy) {
    return policy.in_place_tag_end_;
  }
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_FILTER_ACCESS_H_
