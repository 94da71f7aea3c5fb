// The entry points of a Kernels table that every kernel family derives the
// same way from its probe of one hash: probe a key (hash it with the
// filter's seed), probe a batch of hashes or keys (a loop), and, for
// layouts written through the scalar reference, insert and add. One
// definition, so that the spread, scalar and set families cannot drift.
//
// Per Highway target (included inside each target's pass, as in hwy/
// examples/skeleton.cc): the loops are compiled with the target of the
// probe they call, so that the probe is inlined into them. Code outside
// the targets (HWY_ONCE) uses the static target's copy.
#if defined(BLOCKBLOOM_SRC_CORE_PROBE_ADAPTERS_INL_H_) == \
    defined(HWY_TARGET_TOGGLE)
#ifdef BLOCKBLOOM_SRC_CORE_PROBE_ADAPTERS_INL_H_
#undef BLOCKBLOOM_SRC_CORE_PROBE_ADAPTERS_INL_H_
#else
#define BLOCKBLOOM_SRC_CORE_PROBE_ADAPTERS_INL_H_
#endif

#include <hwy/highway.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "src/core/key_hash.h"
#include "src/core/layout.h"
#include "src/core/probe.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::internal {
namespace HWY_NAMESPACE {

using ProbeHashFn = bool (*)(const FilterRef&, uint64_t);

template <ProbeHashFn Probe>
bool AdaptedProbeKey(const FilterRef& f, std::string_view key) {
  return Probe(f, Hash64(key, f.seed));
}

template <ProbeHashFn Probe>
void AdaptedProbeHashes(const FilterRef& f, const uint64_t* hashes, size_t n,
                        bool* results) {
  for (size_t i = 0; i < n; ++i) results[i] = Probe(f, hashes[i]);
}

template <ProbeHashFn Probe>
void AdaptedProbeKeys(const FilterRef& f, const std::string_view* keys,
                      size_t n, bool* results) {
  for (size_t i = 0; i < n; ++i) results[i] = Probe(f, Hash64(keys[i], f.seed));
}

// Writes through the scalar reference (the layouts that use these are
// small: one block, or lanes other than 32 bits).
inline void ReferenceInsertHashes(const FilterRef& f, uint8_t* bits,
                                  const uint64_t* hashes, size_t n) {
  for (size_t i = 0; i < n; ++i) ReferenceInsert(f, bits, hashes[i]);
}

inline bool ReferenceAddHash(const FilterRef& f, uint8_t* bits, uint64_t hash) {
  return ReferenceAdd(f, bits, hash);
}

inline size_t ReferenceAddHashes(const FilterRef& f, uint8_t* bits,
                                 const uint64_t* hashes, size_t n,
                                 bool* added) {
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool changed = ReferenceAdd(f, bits, hashes[i]);
    count += changed;
    if (added != nullptr) added[i] = changed;
  }
  return count;
}

// The table for `Probe`: writable through the reference, or probe-only
// (null writers).
template <ProbeHashFn Probe>
constexpr Kernels AdaptedKernels(bool writable, const char* target_name) {
  return {Probe,
          &AdaptedProbeKey<Probe>,
          &AdaptedProbeHashes<Probe>,
          &AdaptedProbeKeys<Probe>,
          writable ? &ReferenceInsertHashes : nullptr,
          writable ? &ReferenceAddHash : nullptr,
          writable ? &ReferenceAddHashes : nullptr,
          target_name};
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::internal
HWY_AFTER_NAMESPACE();

#endif  // BLOCKBLOOM_SRC_CORE_PROBE_ADAPTERS_INL_H_
