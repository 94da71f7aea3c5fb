// SplitMix64 (Steele, Lea and Flood, 2014): the benchmarks' key and hash
// generator. Fast, seedable, and every output bit is well mixed, so the
// keys and hashes it makes behave as random for the filters under test.
#ifndef BLOCKBLOOM_BENCH_SPLITMIX_H_
#define BLOCKBLOOM_BENCH_SPLITMIX_H_

#include <cstdint>

namespace blockbloom::bench {

// The next value of the sequence that `state` is at (and advances it).
inline uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace blockbloom::bench

#endif  // BLOCKBLOOM_BENCH_SPLITMIX_H_
