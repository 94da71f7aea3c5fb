// A standard (unblocked) Bloom filter, as a baseline: m bits, k = round(c ln 2)
// bits anywhere in the array. Bit positions by double hashing of the 64-bit
// key hash (Kirsch & Mitzenmacher): x_i = h + i * g with g = odd mix of h,
// position = x_i * m >> 64 (multiply-shift range reduction, no division).
// Every probe bit is a separate cache line, so an absent key costs about two
// random memory accesses (it stops at the first zero bit; half the bits are
// zero at the optimal k), a present key k of them.
#ifndef BLOCKBLOOM_BENCH_BASELINES_STANDARD_BLOOM_H_
#define BLOCKBLOOM_BENCH_BASELINES_STANDARD_BLOOM_H_

#include <cstddef>
#include <cstdint>

namespace blockbloom::bench::standard {

// k for c bits/key: round(c * ln 2), in [1, 30].
int NumProbes(double bits_per_key);

struct FilterRef {
  uint64_t* words;  // num_bits / 64 words
  uint64_t num_bits;
  int num_probes;
};

inline uint64_t Step(uint64_t h) {
  return (h * 0x9e3779b97f4a7c15ULL) | 1;  // odd: every x_i differs
}
inline uint64_t Position(uint64_t x, uint64_t num_bits) {
  __extension__ using Wide = unsigned __int128;  // the high half of x * m
  return static_cast<uint64_t>((static_cast<Wide>(x) * num_bits) >> 64);
}

inline bool MayContain(const FilterRef& f, uint64_t h) {
  const uint64_t g = Step(h);
  uint64_t x = h;
  for (int i = 0; i < f.num_probes; ++i, x += g) {
    const uint64_t bit = Position(x, f.num_bits);
    if ((f.words[bit >> 6] & (uint64_t{1} << (bit & 63))) == 0) return false;
  }
  return true;
}

// Batches of 32: the first two probe lines of each key are prefetched (an
// absent key reads 2 on average), then keys are tested in order.
void MayContainBatch(const FilterRef& f, const uint64_t* hashes, size_t n,
                     bool* results);

// Inserts with every line of a group of keys prefetched first.
void InsertBatch(const FilterRef& f, const uint64_t* hashes, size_t n);

}  // namespace blockbloom::bench::standard

#endif  // BLOCKBLOOM_BENCH_BASELINES_STANDARD_BLOOM_H_
