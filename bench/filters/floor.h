// The memory floor: no filter, one whole 64-byte line read per probe at
// blockbloom's block address, with the same batching and prefetching as
// blockbloom's kernels and no filter logic (docs/BENCHMARKS.md).
#ifndef BLOCKBLOOM_BENCH_FILTERS_FLOOR_H_
#define BLOCKBLOOM_BENCH_FILTERS_FLOOR_H_

#include <cstddef>
#include <cstdint>

namespace blockbloom::bench {

struct FloorChoice {
  bool (*single)(const uint8_t*, uint64_t, uint64_t);
  void (*batch)(const uint8_t*, uint64_t, const uint64_t*, size_t, bool*);
  const char* name;
};

// The kernels for this CPU (the widest load it has).
const FloorChoice& Floor();

struct FloorRef {
  FloorRef(const uint8_t* b, uint64_t n)
      : bits(b), blocks(n), single(Floor().single), batch(Floor().batch) {}
  bool Single(uint64_t h) const { return single(bits, blocks, h); }
  void Batch(const uint64_t* h, size_t n, bool* results) const {
    batch(bits, blocks, h, n, results);
  }
  const uint8_t* bits;
  uint64_t blocks;
  bool (*single)(const uint8_t*, uint64_t, uint64_t);
  void (*batch)(const uint8_t*, uint64_t, const uint64_t*, size_t, bool*);
};

}  // namespace blockbloom::bench

#endif  // BLOCKBLOOM_BENCH_FILTERS_FLOOR_H_
