// What the suite runs, by group: the probe benchmarks of one (bits/key,
// size) and the builds of one key count. Registered through a Registrar so
// that the repetitions of a group interleave.
#ifndef BLOCKBLOOM_BENCH_FILTERS_BENCHMARKS_H_
#define BLOCKBLOOM_BENCH_FILTERS_BENCHMARKS_H_

#include <cstddef>

#include "bench/filters/harness.h"

namespace blockbloom::bench {

// Pre-hashed probes: every filter with a hash API, the floors.
void RegisterHashProbes(Registrar& r, double c, size_t bytes);

// Keys of `length` bytes, hashed by each filter with its own hash.
void RegisterKeyProbes(Registrar& r, double c, size_t bytes, size_t length);

// Builds from n real 16-byte keys through each filter's builder; `slow`:
// one iteration per repetition.
void RegisterBuilds(Registrar& r, size_t n, bool slow);

}  // namespace blockbloom::bench

#endif  // BLOCKBLOOM_BENCH_FILTERS_BENCHMARKS_H_
