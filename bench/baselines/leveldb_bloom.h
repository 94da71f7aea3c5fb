// LevelDB 1.23's built-in Bloom filter (util/bloom.cc), the format only: the
// benchmarks probe through LevelDB's own FilterPolicy::KeyMayMatch, but build
// large filters here, from 32-bit hashes, because CreateFilter takes every
// key as a Slice at once (and an int count). For key k:
//   h = Hash(k, seed 0xbc9f1d34)  (LevelDB's murmur-like 32-bit hash)
//   delta = rotr(h, 17); probe j tests bit (h + j * delta) % bits
//   bits = 8 * (len - 1); the last byte holds k = floor(0.69 * bits/key).
// tests/baselines/baselines_test.cc checks that BuildFromHashes(Hash(keys)) is
// byte-identical to LevelDB's CreateFilter(keys).
//
// Limits that matter at large sizes (LevelDB sizes a filter per ~2 KiB data
// block, so it never meets them): the 32-bit hash means bit positions below
// 2^32 (filters above 512 MiB use only their first 512 MiB) and a false
// positive whenever a 32-bit hash collides (rate n / 2^32 on top of the Bloom
// rate: 5% at 2^28 keys).
#ifndef BLOCKBLOOM_BENCH_BASELINES_LEVELDB_BLOOM_H_
#define BLOCKBLOOM_BENCH_BASELINES_LEVELDB_BLOOM_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace blockbloom::bench::leveldb_format {

// leveldb::Hash (util/hash.cc), which the library does not export.
uint32_t Hash(const char* data, size_t n, uint32_t seed);
inline uint32_t BloomHash(std::string_view key) {
  return Hash(key.data(), key.size(), 0xbc9f1d34);
}

// LevelDB's probe count for bits_per_key: floor(0.69 c), in [1, 30].
int NumProbes(int bits_per_key);

// Appends an empty filter for n keys to *dst (zero bits, then k), sized as
// CreateFilter sizes it; returns the offset of its bit array in *dst.
size_t AppendEmptyFilter(size_t n, int bits_per_key, std::string* dst);

// Sets the bits of keys given by their BloomHash values in a bit array of
// `bits` bits (8 * (filter length - 1)), as CreateFilter does; prefetches
// the lines of a group of keys first.
void AddHashes(char* array, size_t bits, int num_probes, const uint32_t* hashes,
               size_t n);

// AppendEmptyFilter + AddHashes: what CreateFilter(keys, n, dst) appends,
// for keys with these BloomHash values.
void BuildFromHashes(const uint32_t* hashes, size_t n, int bits_per_key,
                     std::string* dst);

}  // namespace blockbloom::bench::leveldb_format

#endif  // BLOCKBLOOM_BENCH_BASELINES_LEVELDB_BLOOM_H_
