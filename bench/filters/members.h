// The inputs every filter of the suite shares: the member hashes each
// (bits/key, size) is built from, the absent hashes every pre-hashed probe
// reads, and the ideal random bits of the largest standard filters.
#ifndef BLOCKBLOOM_BENCH_FILTERS_MEMBERS_H_
#define BLOCKBLOOM_BENCH_FILTERS_MEMBERS_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bench/splitmix.h"

namespace blockbloom::bench {

constexpr size_t KiB = size_t{1} << 10;
constexpr size_t MiB = size_t{1} << 20;
constexpr size_t GiB = size_t{1} << 30;

constexpr size_t kProbeHashes = size_t{1} << 20;  // 8 MiB, cycled through
constexpr size_t kChunk = size_t{1} << 16;  // member hashes per generated run

std::string SizeName(size_t bytes);

double Seconds(std::chrono::steady_clock::time_point since);

// The absent probe hashes every filter gets in the pre-hashed benchmarks.
const std::vector<uint64_t>& ProbeHashes();

// n uniform 64-bit member hashes, emitted in chunks in order of their high
// halves: 2^b buckets of the high half, a multinomial count per bucket (by
// conditional binomials, so the total is exactly n), uniform values inside.
// A filter whose block comes from the high half (blockbloom, Parquet) thus
// fills in address order: a 1 GiB filter builds in seconds instead of
// minutes of random cache misses, and the set inserted is the same.
template <typename Fn>
void ForEachMemberChunk(uint64_t n, uint64_t seed, Fn fn) {
  int bucket_bits = 0;
  while (bucket_bits < 20 && (n >> (bucket_bits + 1)) >= 256) ++bucket_bits;
  const uint64_t buckets = uint64_t{1} << bucket_bits;
  std::mt19937_64 counts(seed);
  uint64_t state = seed * 0x9e3779b97f4a7c15ULL + 1;
  std::vector<uint64_t> chunk;
  chunk.reserve(kChunk + 4096);
  uint64_t remaining = n;
  for (uint64_t b = 0; b < buckets; ++b) {
    uint64_t count = remaining;
    if (b + 1 < buckets) {
      std::binomial_distribution<uint64_t> split(
          remaining, 1.0 / static_cast<double>(buckets - b));
      count = split(counts);
    }
    remaining -= count;
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t r = SplitMix64(state);
      const uint64_t high =
          (b << (32 - bucket_bits)) | ((r >> 32) >> bucket_bits);
      chunk.push_back((high << 32) | (r & 0xffffffff));
      if (chunk.size() == kChunk) {
        fn(chunk.data(), chunk.size());
        chunk.clear();
      }
    }
  }
  if (!chunk.empty()) fn(chunk.data(), chunk.size());
}

// Sets `count` uniform random bit positions of a `num_bits` array (a
// multiple of 2^16) in address order: the bits of a standard Bloom filter of
// n keys with k fully independent hash functions, count = n*k.
void SetIdealRandomBits(uint64_t* words, uint64_t num_bits, uint64_t count,
                        uint64_t seed);

}  // namespace blockbloom::bench

#endif  // BLOCKBLOOM_BENCH_FILTERS_MEMBERS_H_
