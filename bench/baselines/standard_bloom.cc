#include "bench/baselines/standard_bloom.h"

#include <algorithm>
#include <cmath>

namespace blockbloom::bench::standard {
namespace {

constexpr size_t kChunk = 32;
// Lines prefetched per key in a probe batch. An absent key stops at its
// first zero bit: it reads 1 line with probability 1/2, 2 with 1/4, ...
// (2 on average), so prefetching all k would mostly fetch lines never read.
constexpr int kPrefetchedProbes = 2;

}  // namespace

int NumProbes(double bits_per_key) {
  const double k = std::round(bits_per_key * std::log(2.0));
  return static_cast<int>(std::clamp(k, 1.0, 30.0));
}

void MayContainBatch(const FilterRef& f, const uint64_t* hashes, size_t n,
                     bool* results) {
  const int prefetched = std::min(kPrefetchedProbes, f.num_probes);
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t m = std::min(kChunk, n - start);
    for (size_t j = 0; j < m; ++j) {
      const uint64_t h = hashes[start + j];
      const uint64_t g = Step(h);
      uint64_t x = h;
      for (int i = 0; i < prefetched; ++i, x += g) {
        __builtin_prefetch(f.words + (Position(x, f.num_bits) >> 6), 0, 3);
      }
    }
    for (size_t j = 0; j < m; ++j) {
      results[start + j] = MayContain(f, hashes[start + j]);
    }
  }
}

void InsertBatch(const FilterRef& f, const uint64_t* hashes, size_t n) {
  constexpr size_t kInsertChunk = 16;
  for (size_t start = 0; start < n; start += kInsertChunk) {
    const size_t m = std::min(kInsertChunk, n - start);
    for (size_t j = 0; j < m; ++j) {
      const uint64_t h = hashes[start + j];
      const uint64_t g = Step(h);
      uint64_t x = h;
      for (int i = 0; i < f.num_probes; ++i, x += g) {
        __builtin_prefetch(f.words + (Position(x, f.num_bits) >> 6), 1, 3);
      }
    }
    for (size_t j = 0; j < m; ++j) {
      const uint64_t h = hashes[start + j];
      const uint64_t g = Step(h);
      uint64_t x = h;
      for (int i = 0; i < f.num_probes; ++i, x += g) {
        const uint64_t bit = Position(x, f.num_bits);
        f.words[bit >> 6] |= uint64_t{1} << (bit & 63);
      }
    }
  }
}

}  // namespace blockbloom::bench::standard
