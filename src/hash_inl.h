// The key hash, inlined: XXH3-64 with a seed. Inlining matters for short keys
// in the batch loops, where a call per key would cost as much as the hash.
#ifndef BLOCKBLOOM_SRC_HASH_INL_H_
#define BLOCKBLOOM_SRC_HASH_INL_H_

#include <cstdint>
#include <string_view>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace blockbloom::internal {

inline uint64_t Hash64(std::string_view key, uint64_t seed) {
  return XXH3_64bits_withSeed(key.data(), key.size(), seed);
}

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_HASH_INL_H_
