// FilterPolicy::KeyMayMatch, inline: the one probe of a block's bytes that
// the policy and every engine adapter call, so that the hot path of an
// engine read is call-free and its rules (empty block, in-place block,
// probe cache, failing open) are written and tested once.
#ifndef BLOCKBLOOM_SRC_POLICY_KEY_MAY_MATCH_H_
#define BLOCKBLOOM_SRC_POLICY_KEY_MAY_MATCH_H_

#include <cstdint>
#include <string_view>

#include "absl/types/span.h"
#include "blockbloom/filter_policy.h"
#include "src/core/filter_access.h"
#include "src/exact_size/in_place.h"
#include "src/policy/policy_access.h"
#include "src/policy/probe_cache.h"

namespace blockbloom::internal {

// The rules are FilterPolicy::KeyMayMatch's (blockbloom/filter_policy.h).
inline bool PolicyKeyMayMatch(const FilterPolicy& policy, std::string_view key,
                              absl::Span<const uint8_t> block) {
  if (block.empty()) return false;
  // One compare for "an in-place tag, and a policy that reads them".
  const uint8_t tag = block.back();
  if (tag < PolicyAccess::InPlaceTagEnd(policy)) {
    return InPlaceMayMatchTag(block.data(), block.size(), tag,
                              policy.options().seed, key);
  }
  // Misses (and probe_cache_bytes = 0) open and verify the block out of line.
  return CachedMayContain(block, PolicyAccess::CacheConfig(policy), key);
}

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_POLICY_KEY_MAY_MATCH_H_
