// SIMD probe and insert kernels, compiled once per Highway target and chosen
// at run time (the layout of hwy/examples/skeleton.cc). The derivation of
// block, lanes and bits comes from src/layout.h; this file only vectorizes it:
// one multiply of the low hash word by the 16 lane salts gives every lane's
// bit number, the lane set turns the unused lanes' masks to zero, and a probe
// passes when no mask bit is missing from the block.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/probe.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// Must come after foreach_target.h.
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "src/hash_inl.h"
#include "src/layout.h"
#include "src/probe.h"
#include "src/probe_small.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::internal {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// At most 16 lanes of 32 bits: on AVX-512 one vector is the whole block; on
// 256- and 128-bit targets the loops below run 2 or 4 times.
using D = hn::CappedTag<uint32_t, kLanes>;
using V = hn::Vec<D>;

// The mask the key requires of lanes [i, i + Lanes(d)) of its block.
HWY_INLINE V MaskChunk(D d, V lo, V lane_set, size_t i) {
  const V bit_number = hn::ShiftRight<27>(lo * hn::Load(d, kLaneSalt + i));
  const auto used =
      hn::Ne(hn::And(lane_set, hn::Load(d, kLaneBit + i)), hn::Zero(d));
  return hn::IfThenElseZero(used, hn::Set(d, 1u) << bit_number);
}

HWY_INLINE bool ProbeBlock(const uint8_t* block, uint32_t lo,
                           const uint16_t* lane_sets) {
  const D d;
  const V lo_v = hn::Set(d, lo);
  const V set_v = hn::Set(d, uint32_t{lane_sets[Selector(lo)]});
  const uint32_t* words = reinterpret_cast<const uint32_t*>(block);
  V missing = hn::Zero(d);
  for (size_t i = 0; i < static_cast<size_t>(kLanes); i += hn::Lanes(d)) {
    const V mask = MaskChunk(d, lo_v, set_v, i);
    missing = hn::Or(missing, hn::AndNot(hn::LoadU(d, words + i), mask));
  }
  return hn::AllTrue(d, hn::Eq(missing, hn::Zero(d)));
}

HWY_INLINE void InsertBlock(uint8_t* block, uint32_t lo,
                            const uint16_t* lane_sets) {
  const D d;
  const V lo_v = hn::Set(d, lo);
  const V set_v = hn::Set(d, uint32_t{lane_sets[Selector(lo)]});
  uint32_t* words = reinterpret_cast<uint32_t*>(block);
  for (size_t i = 0; i < static_cast<size_t>(kLanes); i += hn::Lanes(d)) {
    const V mask = MaskChunk(d, lo_v, set_v, i);
    hn::StoreU(hn::Or(hn::LoadU(d, words + i), mask), d, words + i);
  }
}

// InsertBlock that reports whether a bit was missing, and stores only then.
HWY_INLINE bool AddBlock(uint8_t* block, uint32_t lo,
                         const uint16_t* lane_sets) {
  const D d;
  const V lo_v = hn::Set(d, lo);
  const V set_v = hn::Set(d, uint32_t{lane_sets[Selector(lo)]});
  uint32_t* words = reinterpret_cast<uint32_t*>(block);
  V missing = hn::Zero(d);
  for (size_t i = 0; i < static_cast<size_t>(kLanes); i += hn::Lanes(d)) {
    const V mask = MaskChunk(d, lo_v, set_v, i);
    missing = hn::Or(missing, hn::AndNot(hn::LoadU(d, words + i), mask));
  }
  if (hn::AllTrue(d, hn::Eq(missing, hn::Zero(d)))) return false;
  for (size_t i = 0; i < static_cast<size_t>(kLanes); i += hn::Lanes(d)) {
    const V mask = MaskChunk(d, lo_v, set_v, i);
    hn::StoreU(hn::Or(hn::LoadU(d, words + i), mask), d, words + i);
  }
  return true;
}

HWY_INLINE const uint8_t* BlockOf(const FilterRef& f, uint64_t hash) {
  return f.bits + BlockIndex(hash, f.num_blocks) * kBlockBytes;
}

bool ProbeHash(const FilterRef& f, uint64_t hash) {
  return ProbeBlock(BlockOf(f, hash), static_cast<uint32_t>(hash), f.lane_sets);
}

bool ProbeKey(const FilterRef& f, std::string_view key) {
  return ProbeHash(f, Hash64(key, f.seed));
}

// The batch loop of every kernel below: for each chunk of kBatchChunk
// hashes, pass 1 computes and prefetches the blocks, pass 2 calls
// fn(index, block, low hash word), so the chunk's cache misses overlap.
template <typename Byte, typename Fn>
HWY_INLINE void ForEachPrefetchedBlock(Byte* bits, uint64_t num_blocks,
                                       const uint64_t* hashes, size_t n,
                                       Fn fn) {
  Byte* blocks[kBatchChunk];
  for (size_t start = 0; start < n; start += kBatchChunk) {
    const size_t m = n - start < kBatchChunk ? n - start : kBatchChunk;
    for (size_t j = 0; j < m; ++j) {
      blocks[j] =
          bits + BlockIndex(hashes[start + j], num_blocks) * kBlockBytes;
      hwy::Prefetch(blocks[j]);
    }
    for (size_t j = 0; j < m; ++j) {
      fn(start + j, blocks[j], static_cast<uint32_t>(hashes[start + j]));
    }
  }
}

void ProbeHashes(const FilterRef& f, const uint64_t* hashes, size_t n,
                 bool* results) {
  ForEachPrefetchedBlock(f.bits, f.num_blocks, hashes, n,
                         [&](size_t i, const uint8_t* block, uint32_t lo) {
                           results[i] = ProbeBlock(block, lo, f.lane_sets);
                         });
}

void ProbeKeys(const FilterRef& f, const std::string_view* keys, size_t n,
               bool* results) {
  uint64_t hashes[kBatchChunk];
  for (size_t start = 0; start < n; start += kBatchChunk) {
    const size_t m = n - start < kBatchChunk ? n - start : kBatchChunk;
    for (size_t j = 0; j < m; ++j) hashes[j] = Hash64(keys[start + j], f.seed);
    ProbeHashes(f, hashes, m, results + start);
  }
}

void InsertBatch(const FilterRef& f, uint8_t* bits, const uint64_t* hashes,
                 size_t n) {
  ForEachPrefetchedBlock(bits, f.num_blocks, hashes, n,
                         [&](size_t, uint8_t* block, uint32_t lo) {
                           InsertBlock(block, lo, f.lane_sets);
                         });
}

bool AddOne(const FilterRef& f, uint8_t* bits, uint64_t hash) {
  return AddBlock(bits + BlockIndex(hash, f.num_blocks) * kBlockBytes,
                  static_cast<uint32_t>(hash), f.lane_sets);
}

size_t AddBatch(const FilterRef& f, uint8_t* bits, const uint64_t* hashes,
                size_t n, bool* added) {
  size_t count = 0;
  ForEachPrefetchedBlock(bits, f.num_blocks, hashes, n,
                         [&](size_t i, uint8_t* block, uint32_t lo) {
                           const bool changed =
                               AddBlock(block, lo, f.lane_sets);
                           count += changed;
                           if (added != nullptr) added[i] = changed;
                         });
  return count;
}

const Kernels kKernels = {
    &ProbeHash,   &ProbeKey, &ProbeHashes, &ProbeKeys,
    &InsertBatch, &AddOne,   &AddBatch,    hwy::TargetName(HWY_TARGET)};

const Kernels* GetKernels() { return &kKernels; }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::internal
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace blockbloom::internal {

HWY_EXPORT(GetKernels);

const Kernels* ActiveKernels() {
  hwy::ChosenTarget& chosen = hwy::GetChosenTarget();
  if (!chosen.IsInitialized()) chosen.Update(hwy::SupportedTargets());
  return HWY_DYNAMIC_DISPATCH(GetKernels)();
}

// Other lane widths: the scalar reference (src/probe_small.cc). A Filter
// of one block of other lanes uses the SIMD kernels of src/probe_small.cc
// (it knows its spread-lane geometry; a bare FilterRef may not).
const Kernels* KernelsFor(uint32_t lane_bits) {
  return lane_bits == kLaneBits ? ActiveKernels() : ScalarLaneKernels();
}

}  // namespace blockbloom::internal
#endif  // HWY_ONCE
