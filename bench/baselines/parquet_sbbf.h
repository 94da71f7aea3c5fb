// The Parquet split block Bloom filter (parquet-format BloomFilter.md), as a
// baseline: z blocks of 256 bits = eight 32-bit words; for a 64-bit hash h
//   block = ((h >> 32) * z) >> 32
//   in word i, the bit (uint32(uint32(h) * kSalt[i])) >> 27
// exactly one bit per word, k = 8 always. Keys hash with XXH64 (seed 0).
// Kernels are Highway, one per SIMD target, chosen at run time (AVX-512VL on
// a 256-bit vector, AVX2, SSE4 in two halves, ...);
// tests/baselines/baselines_test.cc checks every target against
// ReferenceMayContain and ReferenceInsert, which are the spec's pseudo-code.
#ifndef BLOCKBLOOM_BENCH_BASELINES_PARQUET_SBBF_H_
#define BLOCKBLOOM_BENCH_BASELINES_PARQUET_SBBF_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace blockbloom::bench::parquet {

inline constexpr size_t kBlockBytes = 32;
inline constexpr uint32_t kSalt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU,
                                      0xa2b7289dU, 0x705495c7U, 0x2df1424bU,
                                      0x9efc4947U, 0x5c6bfb31U};

inline uint64_t BlockIndex(uint64_t hash, uint64_t num_blocks) {
  return ((hash >> 32) * num_blocks) >> 32;
}

// The spec, literally: the scalar reference for every SIMD target.
inline void Mask(uint32_t key, uint32_t mask[8]) {
  for (int i = 0; i < 8; ++i) mask[i] = uint32_t{1} << ((key * kSalt[i]) >> 27);
}
inline bool ReferenceMayContain(const uint8_t* bits, uint64_t num_blocks,
                                uint64_t hash) {
  const uint8_t* block = bits + BlockIndex(hash, num_blocks) * kBlockBytes;
  uint32_t mask[8];
  Mask(static_cast<uint32_t>(hash), mask);
  for (int i = 0; i < 8; ++i) {
    uint32_t word;
    std::memcpy(&word, block + 4 * i, 4);
    if ((word & mask[i]) == 0) return false;
  }
  return true;
}
inline void ReferenceInsert(uint8_t* bits, uint64_t num_blocks, uint64_t hash) {
  uint8_t* block = bits + BlockIndex(hash, num_blocks) * kBlockBytes;
  uint32_t mask[8];
  Mask(static_cast<uint32_t>(hash), mask);
  for (int i = 0; i < 8; ++i) {
    uint32_t word;
    std::memcpy(&word, block + 4 * i, 4);
    word |= mask[i];
    std::memcpy(block + 4 * i, &word, 4);
  }
}

// One target's kernels.
struct Kernels {
  bool (*probe)(const uint8_t* bits, uint64_t num_blocks, uint64_t hash);
  // Blocks of 32 hashes: all addresses computed and prefetched, then tested.
  void (*probe_batch)(const uint8_t* bits, uint64_t num_blocks,
                      const uint64_t* hashes, size_t n, bool* results);
  void (*insert_batch)(uint8_t* bits, uint64_t num_blocks,
                       const uint64_t* hashes, size_t n);
  const char* target_name;
};

// The best target's kernels (or the one a test forced with
// hwy::SetSupportedTargetsForTest).
const Kernels* ActiveKernels();

// XXH64 with seed 0, the spec's hash.
uint64_t Hash(std::string_view key);

}  // namespace blockbloom::bench::parquet

#endif  // BLOCKBLOOM_BENCH_BASELINES_PARQUET_SBBF_H_
