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

// The kernels of one Highway target. The single-key probes take scalars, not
// a FilterRef, so that every argument travels in a register.
struct Kernels {
  bool (*probe_hash)(const uint8_t* bits, uint64_t num_blocks,
                     const uint16_t* lane_sets, uint64_t hash);
  bool (*probe_key)(const uint8_t* bits, uint64_t num_blocks,
                    const uint16_t* lane_sets, uint64_t seed,
                    std::string_view key);
  // Batches: compute every block address first and prefetch it, then test, so
  // the cache misses of up to kBatchChunk keys overlap instead of queueing.
  void (*probe_hashes)(const FilterRef& f, const uint64_t* hashes, size_t n,
                       bool* results);
  void (*probe_keys)(const FilterRef& f, const std::string_view* keys, size_t n,
                     bool* results);
  // Sets the bits of n hashes, prefetching blocks ahead like the batch probe.
  void (*insert)(uint8_t* bits, uint64_t num_blocks, const uint16_t* lane_sets,
                 const uint64_t* hashes, size_t n);
  // "AVX3" (AVX-512), "AVX2", "SSE4", "NEON", "EMU128", "SCALAR", ...
  const char* target_name;
};

inline constexpr size_t kBatchChunk = 32;

// The kernels of the best target this CPU supports (or of the target a test
// forced with hwy::SetSupportedTargetsForTest). Resolve once and keep the
// pointer: a Filter does, so that a probe costs one indirect call.
const Kernels* ActiveKernels();

// Shorthands that resolve the kernels on every call (tests, one-off calls).
inline bool MayContainHash(const FilterRef& f, uint64_t hash) {
  return ActiveKernels()->probe_hash(f.bits, f.num_blocks, f.lane_sets, hash);
}
inline bool MayContainKey(const FilterRef& f, std::string_view key) {
  return ActiveKernels()->probe_key(f.bits, f.num_blocks, f.lane_sets, f.seed,
                                    key);
}
inline void MayContainHashes(const FilterRef& f, const uint64_t* hashes,
                             size_t n, bool* results) {
  ActiveKernels()->probe_hashes(f, hashes, n, results);
}
inline void MayContainKeys(const FilterRef& f, const std::string_view* keys,
                           size_t n, bool* results) {
  ActiveKernels()->probe_keys(f, keys, n, results);
}
inline void InsertHashes(uint8_t* bits, uint64_t num_blocks,
                         const uint16_t* lane_sets, const uint64_t* hashes,
                         size_t n) {
  ActiveKernels()->insert(bits, num_blocks, lane_sets, hashes, n);
}
inline const char* ActiveTargetName() { return ActiveKernels()->target_name; }

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_PROBE_H_
