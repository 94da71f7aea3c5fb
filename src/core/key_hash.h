// The key hash, inlined: XXH3-64 with a seed. Inlining matters for short keys
// in the batch loops, where a call per key would cost as much as the hash.
#ifndef BLOCKBLOOM_SRC_CORE_KEY_HASH_H_
#define BLOCKBLOOM_SRC_CORE_KEY_HASH_H_

#include <cstddef>
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

// Hash64 of a key of at most kShortKeyBytes bytes, with XXH3's path for 17
// to 32 bytes inlined as well: for a caller that hashes ONE key and probes
// (ProbeKey, an engine's Get), where the call to XXH3 and its length
// dispatch cost more than the hash (RocksDB's db_bench looks up absent
// keys of 17 bytes: docs/BENCHMARKS.md, "The single Get's cost"). Within
// this bound the compiler drops XXH3_len_17to128_64b's branches for longer
// keys: a few registers, no stack frame. The same value as Hash64
// (tests/core/filter_test.cc checks every length).
inline constexpr size_t kShortKeyBytes = 32;
inline uint64_t Hash64ShortKey(std::string_view key, uint64_t seed) {
  const auto* data = reinterpret_cast<const xxh_u8*>(key.data());
  if (key.size() <= 16) {
    return XXH3_len_0to16_64b(data, key.size(), XXH3_kSecret, seed);
  }
  if (key.size() > kShortKeyBytes) __builtin_unreachable();
  return XXH3_len_17to128_64b(data, key.size(), XXH3_kSecret,
                              sizeof(XXH3_kSecret), seed);
}

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_KEY_HASH_H_
