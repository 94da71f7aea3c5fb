// Internal entry points of the SIMD kernels (src/core/probe.cc). Each call
// dispatches at run time to the best Highway target the CPU supports; every
// target answers exactly what ReferenceMayContain/ReferenceInsert answer.
#ifndef BLOCKBLOOM_SRC_CORE_PROBE_H_
#define BLOCKBLOOM_SRC_CORE_PROBE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "src/core/layout.h"

namespace blockbloom::internal {

// The kernels of one Highway target. They take the filter's FilterRef by
// reference: a probe passes a pointer, not a copy of the fields.
struct Kernels {
  bool (*probe_hash)(const FilterRef& f, uint64_t hash);
  bool (*probe_key)(const FilterRef& f, std::string_view key);
  // Batches: each key's block is prefetched kBatchChunk keys before it is
  // tested, so the cache misses of up to kBatchChunk keys overlap instead of
  // queueing, and a long batch tests one group of kBatchChunk keys while the
  // next group's blocks are in flight.
  void (*probe_hashes)(const FilterRef& f, const uint64_t* hashes, size_t n,
                       bool* results);
  void (*probe_keys)(const FilterRef& f, const std::string_view* keys, size_t n,
                     bool* results);
  // Sets the bits of n hashes in `bits` (a filter of f's geometry),
  // prefetching blocks ahead like the batch probe (the same pipeline).
  void (*insert)(const FilterRef& f, uint8_t* bits, const uint64_t* hashes,
                 size_t n);
  // Inserts one hash and returns whether any of its bits was clear
  // (ReferenceAdd). The block is written only if a bit changes, so adding a
  // key that is already present leaves its cache line clean.
  bool (*add_hash)(const FilterRef& f, uint8_t* bits, uint64_t hash);
  // add_hash for n hashes in order (a repeated hash reports false the second
  // time), prefetching like the batch probe. added[i] gets the result of
  // hashes[i] unless `added` is null; returns how many were true.
  size_t (*add_hashes)(const FilterRef& f, uint8_t* bits,
                       const uint64_t* hashes, size_t n, bool* added);
  // "AVX3" (AVX-512), "AVX2", "SSE4", "NEON", "EMU128", "SCALAR", or
  // "scalar-lanes" for the scalar kernels of filters whose lanes are not 32
  // bits wide.
  const char* target_name;
};

inline constexpr size_t kBatchChunk = 32;

// The SIMD kernels (32-bit lanes only) of the best target this CPU supports,
// or of the target a test forced with hwy::SetSupportedTargetsForTest.
// Resolve once and keep the pointer: a Filter does, so that a probe costs one
// indirect call.
const Kernels* ActiveKernels();

// The kernels for a filter with `lane_bits`-bit lanes: the SIMD ones for 32,
// the scalar reference for other widths.
const Kernels* KernelsFor(uint32_t lane_bits);

// Shorthands that resolve the kernels on every call (tests, one-off calls).
inline bool MayContainHash(const FilterRef& f, uint64_t hash) {
  return KernelsFor(f.lane_bits)->probe_hash(f, hash);
}
inline bool MayContainKey(const FilterRef& f, std::string_view key) {
  return KernelsFor(f.lane_bits)->probe_key(f, key);
}
inline void MayContainHashes(const FilterRef& f, const uint64_t* hashes,
                             size_t n, bool* results) {
  KernelsFor(f.lane_bits)->probe_hashes(f, hashes, n, results);
}
inline void MayContainKeys(const FilterRef& f, const std::string_view* keys,
                           size_t n, bool* results) {
  KernelsFor(f.lane_bits)->probe_keys(f, keys, n, results);
}
inline void InsertHashes(const FilterRef& f, uint8_t* bits,
                         const uint64_t* hashes, size_t n) {
  KernelsFor(f.lane_bits)->insert(f, bits, hashes, n);
}
inline bool AddHash(const FilterRef& f, uint8_t* bits, uint64_t hash) {
  return KernelsFor(f.lane_bits)->add_hash(f, bits, hash);
}
inline size_t AddHashes(const FilterRef& f, uint8_t* bits,
                        const uint64_t* hashes, size_t n, bool* added) {
  return KernelsFor(f.lane_bits)->add_hashes(f, bits, hashes, n, added);
}
inline const char* ActiveTargetName() { return ActiveKernels()->target_name; }

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_PROBE_H_
