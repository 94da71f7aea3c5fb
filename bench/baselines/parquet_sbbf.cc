// Highway kernels of the Parquet split block Bloom filter, one per target
// (the layout of hwy/examples/skeleton.cc, as src/core/probe.cc).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "bench/baselines/parquet_sbbf.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// Must come after foreach_target.h.
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "bench/baselines/parquet_sbbf.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::bench::parquet {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Up to 8 lanes of 32 bits: one vector per block on AVX2 and AVX-512 (a
// 256-bit vector with AVX-512VL), two on 128-bit targets.
using D = hn::CappedTag<uint32_t, 8>;
using V = hn::Vec<D>;

HWY_INLINE V MaskChunk(D d, V key, size_t i) {
  const V bit = hn::ShiftRight<27>(key * hn::LoadU(d, kSalt + i));
  return hn::Set(d, 1u) << bit;
}

HWY_INLINE bool ProbeBlock(const uint8_t* block, uint32_t key) {
  const D d;
  const V key_v = hn::Set(d, key);
  const uint32_t* words = reinterpret_cast<const uint32_t*>(block);
  V missing = hn::Zero(d);
  for (size_t i = 0; i < 8; i += hn::Lanes(d)) {
    missing = hn::Or(
        missing, hn::AndNot(hn::LoadU(d, words + i), MaskChunk(d, key_v, i)));
  }
  return hn::AllTrue(d, hn::Eq(missing, hn::Zero(d)));
}

HWY_INLINE void InsertBlock(uint8_t* block, uint32_t key) {
  const D d;
  const V key_v = hn::Set(d, key);
  uint32_t* words = reinterpret_cast<uint32_t*>(block);
  for (size_t i = 0; i < 8; i += hn::Lanes(d)) {
    hn::StoreU(hn::Or(hn::LoadU(d, words + i), MaskChunk(d, key_v, i)), d,
               words + i);
  }
}

bool Probe(const uint8_t* bits, uint64_t num_blocks, uint64_t hash) {
  return ProbeBlock(bits + BlockIndex(hash, num_blocks) * kBlockBytes,
                    static_cast<uint32_t>(hash));
}

constexpr size_t kChunk = 32;

void ProbeBatch(const uint8_t* bits, uint64_t num_blocks,
                const uint64_t* hashes, size_t n, bool* results) {
  const uint8_t* blocks[kChunk];
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t m = n - start < kChunk ? n - start : kChunk;
    for (size_t j = 0; j < m; ++j) {
      blocks[j] =
          bits + BlockIndex(hashes[start + j], num_blocks) * kBlockBytes;
      hwy::Prefetch(blocks[j]);
    }
    for (size_t j = 0; j < m; ++j) {
      results[start + j] =
          ProbeBlock(blocks[j], static_cast<uint32_t>(hashes[start + j]));
    }
  }
}

void InsertBatch(uint8_t* bits, uint64_t num_blocks, const uint64_t* hashes,
                 size_t n) {
  uint8_t* blocks[kChunk];
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t m = n - start < kChunk ? n - start : kChunk;
    for (size_t j = 0; j < m; ++j) {
      blocks[j] =
          bits + BlockIndex(hashes[start + j], num_blocks) * kBlockBytes;
      hwy::Prefetch(blocks[j]);
    }
    for (size_t j = 0; j < m; ++j) {
      InsertBlock(blocks[j], static_cast<uint32_t>(hashes[start + j]));
    }
  }
}

const Kernels kKernels = {&Probe, &ProbeBatch, &InsertBatch,
                          hwy::TargetName(HWY_TARGET)};
const Kernels* GetKernels() { return &kKernels; }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::bench::parquet
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace blockbloom::bench::parquet {

HWY_EXPORT(GetKernels);

const Kernels* ActiveKernels() {
  // Updated every time: SupportedTargets() itself (Highway 1.0.3) leaves the
  // choice at every target the CPU has, whatever DisableTargets removed
  // (filter_bench --parquet_avx2); the update applies the removal.
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
  return HWY_DYNAMIC_DISPATCH(GetKernels)();
}

uint64_t Hash(std::string_view key) { return XXH64(key.data(), key.size(), 0); }

}  // namespace blockbloom::bench::parquet
#endif  // HWY_ONCE
