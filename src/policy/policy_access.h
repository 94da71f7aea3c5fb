// The private parts of FilterPolicy that the library's own code uses (the
// engine adapters' inline probe, src/policy/key_may_match.h), in one place
// instead of accessors in the public header. Not part of the API.
#ifndef BLOCKBLOOM_SRC_POLICY_POLICY_ACCESS_H_
#define BLOCKBLOOM_SRC_POLICY_POLICY_ACCESS_H_

#include <cstdint>

#include "blockbloom/filter_policy.h"
#include "blockbloom/internal/probe_cache_config.h"

namespace blockbloom::internal {

struct PolicyAccess {
  // A policy's per-thread cache settings (src/policy/probe_cache.h).
  static const ProbeCacheConfig& CacheConfig(const FilterPolicy& policy) {
    return policy.cache_;
  }
  // The last byte below which a block is probed in place: one past the
  // in-place tags for an exact-size policy, 0 (none) for any other.
  static uint8_t InPlaceTagEnd(const FilterPolicy& policy) {
    return policy.in_place_tag_end_;
  }
  // The level_aware plan (with the kinds it chooses from), or null: for an
  // engine adapter that plans on its own observations (the RocksDB
  // adapter's learned plan) over the same kinds and budget.
  static const LevelAllocator* Allocator(const FilterPolicy& policy) {
    return policy.allocator_.get();
  }
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_POLICY_POLICY_ACCESS_H_
