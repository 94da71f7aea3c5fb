// Implementation detail of blockbloom/filter_policy.h; not part of the API.
#ifndef BLOCKBLOOM_INTERNAL_PROBE_CACHE_CONFIG_H_
#define BLOCKBLOOM_INTERNAL_PROBE_CACHE_CONFIG_H_

#include <cstddef>
#include <cstdint>

#include "blockbloom/format.h"

namespace blockbloom::internal {

// A reader's settings for the per-thread cache of verified blocks
// (src/policy/probe_cache.h), fixed when its policy is made.
struct ProbeCacheConfig {
  ProbeCacheConfig(const ReadOptions& options, size_t budget)
      : read(options),
        budget_bytes(budget),
        settings((uint64_t{options.verify_checksum} << 63) ^
                 (options.seed * 0x9E3779B97F4A7C15)) {}
  ReadOptions read;
  size_t budget_bytes;
  // The seed and verify flag folded into one word (XORed with a block's size
  // and last 8 bytes to make part of its key): a reader with another seed
  // never sees this reader's blocks, but for a 2^-64 coincidence.
  uint64_t settings;
};

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_INTERNAL_PROBE_CACHE_CONFIG_H_
