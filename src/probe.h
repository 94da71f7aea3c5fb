// Internal entry points of the SIMD kernels (src/probe.cc). Each call
// dispatches at run time to the best Highway target the CPU supports; every
// target answers exactly what ReferenceMayContain/ReferenceInsert answer.
#ifndef BLOCKBLOOM_SRC_PROBE_H_
#define BLOCKBLOOM_SRC_PROBE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "src/layout.h"

namespace blockbloom::internal {

bool MayContainHash(const FilterRef& f, uint64_t hash);
bool MayContainKey(const FilterRef& f, std::string_view key);

// Batches: compute every block address first and prefetch it, then test, so
// the cache misses of up to kBatchChunk keys overlap instead of queueing.
inline constexpr size_t kBatchChunk = 32;
void MayContainHashes(const FilterRef& f, const uint64_t* hashes, size_t n,
                      bool* results);
void MayContainKeys(const FilterRef& f, const std::string_view* keys, size_t n,
                    bool* results);

// Sets the bits of n hashes, prefetching blocks ahead like the batch probe.
void InsertHashes(uint8_t* bits, uint64_t num_blocks, const uint16_t* lane_sets,
                  const uint64_t* hashes, size_t n);

// Name of the Highway target that the dispatched calls use now ("AVX3",
// "AVX2", "SSE4", "NEON", "EMU128", ...).
const char* ActiveTargetName();

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_PROBE_H_
