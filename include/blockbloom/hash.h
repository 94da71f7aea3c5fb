// The key hash every blockbloom filter uses.
#ifndef BLOCKBLOOM_HASH_H_
#define BLOCKBLOOM_HASH_H_

#include <cstdint>
#include <string_view>

namespace blockbloom {

// XXH3-64 of `key` with `seed`. A filter built with a seed must be probed with
// the same seed; the seed is stored with the filter. Seed 0 is XXH3_64bits,
// the one-shot XXH3 of libxxhash (RocksDB 7.8 hashes with an older
// preview of XXH3, whose values differ). Keep the seed secret (and random)
// where an attacker chooses keys: without it they cannot precompute keys that
// collide.
//
// `Filter::MayContainHash(HashKey(key, filter.seed()))` is the same as
// `Filter::MayContain(key)`; hash once and probe many filters with it.
uint64_t HashKey(std::string_view key, uint64_t seed = 0);

}  // namespace blockbloom

#endif  // BLOCKBLOOM_HASH_H_
