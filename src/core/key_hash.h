// The key hash, inlined: XXH3-64 with a seed. Inlining matters for short keys
// in the batch loops, where a call per key would cost as much as the hash.
#ifndef BLOCKBLOOM_SRC_CORE_KEY_HASH_H_
#define BLOCKBLOOM_SRC_CORE_KEY_HASH_H_

#include <cstdint>
#include <string_view>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace blockbloom::internal {

// XXH3_64bits_withSeed, with its path for keys of up to 16 bytes (most
// storage keys: LevelDB's db_bench keys are 16) called directly: the same
// value, without the call and the length dispatch, and without the register
// pressure XXH3's long-key paths would put on a caller that inlined them.
// tests/core/filter_test.cc checks it against XXH3_64bits_withSeed for every
// length to 300.
inline uint64_t Hash64(std::string_view key, uint64_t seed) {
  if (key.size() <= 16) {
    return XXH3_len_0to16_64b(reinterpret_cast<const xxh_u8*>(key.data()),
                              key.size(), XXH3_kSecret, seed);
  }
  return XXH3_64bits_withSeed(key.data(), key.size(), seed);
}

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_KEY_HASH_H_
