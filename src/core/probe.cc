// SIMD probe and insert kernels, compiled once per Highway target and chosen
// at run time (the layout of hwy/examples/skeleton.cc). The derivation of
// block, lanes and bits comes from src/core/layout.h; this file only vectorizes
// it: one multiply of the low hash word by the 16 lane salts gives every lane's
// bit number, the lane set turns the unused lanes' masks to zero, and a probe
// passes when no mask bit is missing from the block.

#include <bit>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/core/probe.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// Must come after foreach_target.h.
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "src/core/key_hash.h"
#include "src/core/layout.h"
#include "src/core/probe.h"
#include "src/core/probe_small.h"
#include "src/core/simd_target.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::internal {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Where the instructions of a single probe go on AVX-512 (ProbeHash; counted
// in the disassembly by bench/filters/instructions.sh, docs/BENCHMARKS.md,
// "Instructions per probe"): the block address (shift, multiply, shift,
// scale, add), the lane set (selector multiply, x240 reduction, shift, the
// table row's pointer, 2-byte load into a mask register), the 16 lanes' bit
// numbers (broadcast, multiply, shift), the bits (broadcast 1s, variable
// shift), the test (vptestnmd, kortestw, sete) and the return.
// Highway's portable ops spend more on the lane set (broadcast, AND with the
// lane bits, compare, masked shift); the targets
// below that have a cheaper way to say it do so with intrinsics, and every
// target is checked bit for bit against ReferenceMayContain
// (tests/core/simd_test.cc).

// Selector(lo): which lane set the key uses. The same value; on x86 the
// multiply by kLaneSets is one imul, where the compiler's shift-and-subtract
// sequence for x240 is four instructions for the same latency.
HWY_INLINE uint32_t LaneSetIndex(uint32_t lo) {
  const uint64_t mixed = static_cast<uint32_t>(lo * kSelectorSalt);
#if HWY_ARCH_X86 && defined(__GNUC__)
  static_assert(kLaneSets == 240, "the immediate below is kLaneSets");
  uint64_t scaled;
  asm("imulq $240, %1, %0" : "=r"(scaled) : "r"(mixed) : "cc");
  return static_cast<uint32_t>(scaled >> 32);
#else
  return static_cast<uint32_t>((mixed * kLaneSets) >> 32);
#endif
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
// AVX-512: one vector is the whole block. The 16-bit lane set is loaded
// straight into a mask register (kmovw) and masks the test, so unused lanes
// need no zeroing: the key's bits are 1 << (top 5 bits of lo * salt) in every
// lane, and a lane of the set fails if its bit is clear in the block.
struct KeyBits {
  __m512i bits;
  __mmask16 lanes;
};

alignas(4) constexpr uint32_t kOne = 1;

HWY_INLINE KeyBits MakeKeyBits(uint32_t lo, const uint16_t* lane_sets) {
  const __m512i salts = _mm512_load_si512(kLaneSalt);
  const __m512i bit_number = _mm512_srli_epi32(
      _mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int>(lo)), salts), 27);
  // Two loads the compiler would otherwise split: the lane set straight
  // from the table into a mask register (it emits movzwl + kmovw), and the
  // 1s broadcast from memory (it emits mov + vpbroadcastd from a register).
  // Not volatile: in the batch loops the broadcast is hoisted.
  __mmask16 lanes;
  asm("kmovw %1, %0" : "=k"(lanes) : "m"(lane_sets[LaneSetIndex(lo)]));
  __m512i ones;
  asm("vpbroadcastd %1, %0" : "=v"(ones) : "m"(kOne));
  return {_mm512_sllv_epi32(ones, bit_number), lanes};
}

// MakeKeyBits for a single probe, in zmm16-31: with no upper half of
// zmm0-15 dirty, the kernel needs no vzeroupper before it returns (GCC and
// clang skip it then): one instruction fewer. Not in the batch
// loops, where the pinning stops the compiler from hoisting the 1s out of
// the loop. Where the registers end up is a matter of speed, never of the
// answer.
HWY_INLINE KeyBits MakeKeyBitsForOneProbe(uint32_t lo,
                                          const uint16_t* lane_sets) {
  __mmask16 lanes;
  asm("kmovw %1, %0" : "=k"(lanes) : "m"(lane_sets[LaneSetIndex(lo)]));
  register __m512i bit_number asm("zmm16") = _mm512_srli_epi32(
      _mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int>(lo)),
                         _mm512_load_si512(kLaneSalt)),
      27);
  asm("" : "+v"(bit_number));
  register __m512i ones asm("zmm17");
  asm("vpbroadcastd %1, %0" : "=v"(ones) : "m"(kOne));
  register __m512i bits asm("zmm16") = _mm512_sllv_epi32(ones, bit_number);
  asm("" : "+v"(bits));
  return {bits, lanes};
}
#define BLOCKBLOOM_ONE_PROBE_KEY_BITS MakeKeyBitsForOneProbe

HWY_INLINE bool AnyMissing(const uint8_t* block, const KeyBits& key) {
  // Lanes of the set where block & bits == 0.
  return _mm512_mask_testn_epi32_mask(key.lanes, key.bits,
                                      _mm512_loadu_si512(block)) != 0;
}

HWY_INLINE void SetBits(uint8_t* block, const KeyBits& key) {
  const __m512i words = _mm512_loadu_si512(block);
  _mm512_storeu_si512(block,
                      _mm512_mask_or_epi32(words, key.lanes, words, key.bits));
}

#elif HWY_ARCH_X86 && HWY_TARGET == HWY_AVX2
// AVX2: two vectors of 8 lanes. The lane set is broadcast from the table as
// 16-bit words (so each 32-bit lane holds it twice); shifting lane L's copy
// left by 31 - L puts the set's bit L on top, and a shift right by 31 leaves
// 1 in the lanes of the set and 0 elsewhere: that 0/1, shifted left by the
// bit number, is the key's mask, zero outside the set.
alignas(32) constexpr uint32_t kLaneToTop[kLanes] = {
    31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16};

struct KeyBits {
  __m256i bits[2];  // lanes 0-7, 8-15
};

HWY_INLINE __m256i HalfMask(__m256i lo_v, __m256i set_v, size_t i) {
  const __m256i bit_number = _mm256_srli_epi32(
      _mm256_mullo_epi32(
          lo_v,
          _mm256_load_si256(reinterpret_cast<const __m256i*>(kLaneSalt + i))),
      27);
  const __m256i in_set = _mm256_srli_epi32(
      _mm256_sllv_epi32(
          set_v,
          _mm256_load_si256(reinterpret_cast<const __m256i*>(kLaneToTop + i))),
      31);
  return _mm256_sllv_epi32(in_set, bit_number);
}

HWY_INLINE KeyBits MakeKeyBits(uint32_t lo, const uint16_t* lane_sets) {
  const __m256i lo_v = _mm256_set1_epi32(static_cast<int>(lo));
  const __m256i set_v =
      _mm256_set1_epi16(static_cast<int16_t>(lane_sets[LaneSetIndex(lo)]));
  return {{HalfMask(lo_v, set_v, 0), HalfMask(lo_v, set_v, 8)}};
}

HWY_INLINE bool AnyMissing(const uint8_t* block, const KeyBits& key) {
  const __m256i* words = reinterpret_cast<const __m256i*>(block);
  const __m256i missing = _mm256_or_si256(
      _mm256_andnot_si256(_mm256_loadu_si256(words), key.bits[0]),
      _mm256_andnot_si256(_mm256_loadu_si256(words + 1), key.bits[1]));
  return !_mm256_testz_si256(missing, missing);
}

HWY_INLINE void SetBits(uint8_t* block, const KeyBits& key) {
  __m256i* words = reinterpret_cast<__m256i*>(block);
  _mm256_storeu_si256(words,
                      _mm256_or_si256(_mm256_loadu_si256(words), key.bits[0]));
  _mm256_storeu_si256(
      words + 1, _mm256_or_si256(_mm256_loadu_si256(words + 1), key.bits[1]));
}

#elif HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
// No SIMD: the key's k lanes one at a time, as the reference does, instead
// of 16 emulated vector lanes. The loop runs exactly k times for every key
// (a lane set has k bits), so its branch is predicted.
struct KeyBits {
  uint32_t lo;
  uint32_t lanes;
};

HWY_INLINE KeyBits MakeKeyBits(uint32_t lo, const uint16_t* lane_sets) {
  return {lo, lane_sets[LaneSetIndex(lo)]};
}

HWY_INLINE uint32_t LaneMask(const KeyBits& key, uint32_t lane) {
  return 1u << ((key.lo * kLaneSalt[lane]) >> 27);  // BitInLane for 32 bits
}

HWY_INLINE bool AnyMissing(const uint8_t* block, const KeyBits& key) {
  uint32_t missing = 0;
  for (uint32_t set = key.lanes; set != 0; set &= set - 1) {
    const uint32_t lane = static_cast<uint32_t>(std::countr_zero(set));
    uint32_t word;
    std::memcpy(&word, block + 4 * lane, 4);
    missing |= LaneMask(key, lane) & ~word;
  }
  return missing != 0;
}

HWY_INLINE void SetBits(uint8_t* block, const KeyBits& key) {
  for (uint32_t set = key.lanes; set != 0; set &= set - 1) {
    const uint32_t lane = static_cast<uint32_t>(std::countr_zero(set));
    uint32_t word;
    std::memcpy(&word, block + 4 * lane, 4);
    word |= LaneMask(key, lane);
    std::memcpy(block + 4 * lane, &word, 4);
  }
}

#else
// SSE4, SSSE3 and other vector targets, in portable Highway ops: at most
// 16 lanes of 32 bits in 2 to 4 vectors (or scalable ones, which cannot be
// kept in an array: the masks are made where they are used). A lane is in
// the set if (set & kLaneBit) == kLaneBit, one compare; the mask is
// 1 << bit number there and 0 elsewhere.
using D = hn::CappedTag<uint32_t, kLanes>;
using V = hn::Vec<D>;

struct KeyBits {
  uint32_t lo;
  uint32_t lanes;
};

HWY_INLINE KeyBits MakeKeyBits(uint32_t lo, const uint16_t* lane_sets) {
  return {lo, lane_sets[LaneSetIndex(lo)]};
}

HWY_INLINE V MaskChunk(D d, V lo_v, V set_v, size_t i) {
  const V bit_number = hn::ShiftRight<27>(lo_v * hn::Load(d, kLaneSalt + i));
  const V lane_bit = hn::Load(d, kLaneBit + i);
  return hn::IfThenElseZero(hn::Eq(hn::And(set_v, lane_bit), lane_bit),
                            hn::Set(d, 1u) << bit_number);
}

HWY_INLINE bool AnyMissing(const uint8_t* block, const KeyBits& key) {
  const D d;
  const V lo_v = hn::Set(d, key.lo);
  const V set_v = hn::Set(d, key.lanes);
  const uint32_t* words = reinterpret_cast<const uint32_t*>(block);
  V missing = hn::Zero(d);
  for (size_t i = 0; i < static_cast<size_t>(kLanes); i += hn::Lanes(d)) {
    missing = hn::Or(missing, hn::AndNot(hn::LoadU(d, words + i),
                                         MaskChunk(d, lo_v, set_v, i)));
  }
#if HWY_ARCH_X86 && HWY_TARGET == HWY_SSE4
  return !_mm_testz_si128(missing.raw, missing.raw);  // ptest
#else
  return !hn::AllTrue(d, hn::Eq(missing, hn::Zero(d)));
#endif
}

HWY_INLINE void SetBits(uint8_t* block, const KeyBits& key) {
  const D d;
  const V lo_v = hn::Set(d, key.lo);
  const V set_v = hn::Set(d, key.lanes);
  uint32_t* words = reinterpret_cast<uint32_t*>(block);
  for (size_t i = 0; i < static_cast<size_t>(kLanes); i += hn::Lanes(d)) {
    hn::StoreU(hn::Or(hn::LoadU(d, words + i), MaskChunk(d, lo_v, set_v, i)), d,
               words + i);
  }
}
#endif

HWY_INLINE bool ProbeBlock(const uint8_t* block, uint32_t lo,
                           const uint16_t* lane_sets) {
  return !AnyMissing(block, MakeKeyBits(lo, lane_sets));
}

// The key bits of ProbeHash and ProbeKey (one key per call).
HWY_INLINE KeyBits MakeKeyBitsForOne(uint32_t lo, const uint16_t* lane_sets) {
#ifdef BLOCKBLOOM_ONE_PROBE_KEY_BITS
  return BLOCKBLOOM_ONE_PROBE_KEY_BITS(lo, lane_sets);
#else
  return MakeKeyBits(lo, lane_sets);
#endif
}

HWY_INLINE void InsertBlock(uint8_t* block, uint32_t lo,
                            const uint16_t* lane_sets) {
  SetBits(block, MakeKeyBits(lo, lane_sets));
}

// InsertBlock that reports whether a bit was missing, and stores only then.
HWY_INLINE bool AddBlock(uint8_t* block, uint32_t lo,
                         const uint16_t* lane_sets) {
  const KeyBits key = MakeKeyBits(lo, lane_sets);
  if (!AnyMissing(block, key)) return false;
  SetBits(block, key);
  return true;
}

HWY_INLINE const uint8_t* BlockOf(const FilterRef& f, uint64_t hash) {
  return f.bits + BlockIndex(hash, f.num_blocks) * kBlockBytes;
}

HWY_INLINE bool ProbeOne(const FilterRef& f, uint64_t hash) {
  // The key's bits first: the low word is then used before the hash is
  // shifted for the block (one register copy fewer on x86).
  const KeyBits key =
      MakeKeyBitsForOne(static_cast<uint32_t>(hash), f.lane_sets);
  return !AnyMissing(BlockOf(f, hash), key);
}

bool ProbeHash(const FilterRef& f, uint64_t hash) { return ProbeOne(f, hash); }

// Keys longer than kShortKeyBytes, out of line: ProbeKey reaches it by a
// jump, and needs no stack frame for XXH3's code for long keys.
[[gnu::noinline]] bool ProbeLongKey(const FilterRef& f, std::string_view key) {
  return ProbeOne(f, Hash64(key, f.seed));
}

// The hash and the probe in one function, no call between them: this is an
// engine's single Get (RocksDB's FilterBitsReader::MayMatch calls it
// through Filter::MayContain), where calls to the hash and to ProbeHash
// cost more instructions than the probe (docs/BENCHMARKS.md, "The single
// Get's cost").
bool ProbeKey(const FilterRef& f, std::string_view key) {
  if (key.size() > kShortKeyBytes) return ProbeLongKey(f, key);
  return ProbeOne(f, Hash64ShortKey(key, f.seed));
}

// The batch loop of every kernel below: a software pipeline. Key i's block
// is prefetched kBatchChunk keys before fn(i, block, low hash word) tests
// it, so while one group of 32 keys is tested the next group's cache misses
// are already in flight, and a batch of n keys costs about n misses
// overlapped 32 at a time rather than n/32 rounds of "wait for 32 misses,
// then compute". (Prefetching a group and then testing it, group after
// group, left the memory idle during each group's tests, well above the
// memory floor for large batches out of cache.) A batch of at most 32 keys
// is one group:
// prefetch all, then test all.
//
// `source(i)` gives key i's hash. Pre-hashed input re-reads it when the key
// is tested; hashes computed from keys (kKeep) are kept in the ring.
struct HashArray {
  static constexpr bool kKeep = false;
  uint64_t operator()(size_t i) const { return hashes[i]; }
  const uint64_t* hashes;
};

struct KeyHashes {
  static constexpr bool kKeep = true;
  uint64_t operator()(size_t i) const { return Hash64(keys[i], seed); }
  const std::string_view* keys;
  uint64_t seed;
};

template <typename Byte, typename Source, typename Fn>
HWY_INLINE void ForEachPrefetchedBlock(Byte* bits, uint64_t num_blocks,
                                       size_t n, const Source& source, Fn fn) {
  constexpr size_t kAhead = kBatchChunk;  // a power of two: i % kAhead is cheap
  static_assert((kAhead & (kAhead - 1)) == 0);
  Byte* blocks[kAhead];
  uint32_t kept[Source::kKeep ? kAhead : 1];
  const auto fetch = [&](size_t i) {
    const uint64_t hash = source(i);
    Byte* const block = bits + BlockIndex(hash, num_blocks) * kBlockBytes;
    hwy::Prefetch(block);
    blocks[i % kAhead] = block;
    if constexpr (Source::kKeep) kept[i % kAhead] = static_cast<uint32_t>(hash);
  };
  const auto test = [&](size_t i) {
    if constexpr (Source::kKeep) {
      fn(i, blocks[i % kAhead], kept[i % kAhead]);
    } else {
      fn(i, blocks[i % kAhead], static_cast<uint32_t>(source(i)));
    }
  };
  // The loops are unrolled by 2: their counter, compare and branch are a
  // noticeable share of a key's instructions (callgrind), and unrolling
  // further gained little.
  if (n <= kAhead) {  // one group; slot i is i (no ring arithmetic)
#pragma GCC unroll 2
    for (size_t i = 0; i < n; ++i) fetch(i);
#pragma GCC unroll 2
    for (size_t i = 0; i < n; ++i) {
      if constexpr (Source::kKeep) {
        fn(i, blocks[i], kept[i]);
      } else {
        fn(i, blocks[i], static_cast<uint32_t>(source(i)));
      }
    }
    return;
  }
#pragma GCC unroll 2
  for (size_t i = 0; i < kAhead; ++i) fetch(i);
  size_t i = 0;
#pragma GCC unroll 2
  for (; i + kAhead < n; ++i) {
    // Test key i first: fetch(i + kAhead) reuses its slot.
    test(i);
    fetch(i + kAhead);
  }
  for (; i < n; ++i) test(i);
}

void ProbeHashes(const FilterRef& f, const uint64_t* hashes, size_t n,
                 bool* results) {
  ForEachPrefetchedBlock(f.bits, f.num_blocks, n, HashArray{hashes},
                         [&](size_t i, const uint8_t* block, uint32_t lo) {
                           results[i] = ProbeBlock(block, lo, f.lane_sets);
                         });
}

void ProbeKeys(const FilterRef& f, const std::string_view* keys, size_t n,
               bool* results) {
  ForEachPrefetchedBlock(f.bits, f.num_blocks, n, KeyHashes{keys, f.seed},
                         [&](size_t i, const uint8_t* block, uint32_t lo) {
                           results[i] = ProbeBlock(block, lo, f.lane_sets);
                         });
}

void InsertBatch(const FilterRef& f, uint8_t* bits, const uint64_t* hashes,
                 size_t n) {
  // A copy: the stores into the blocks could alias f, so f.lane_sets would
  // be loaded again for every key.
  const uint16_t* const lane_sets = f.lane_sets;
  ForEachPrefetchedBlock(bits, f.num_blocks, n, HashArray{hashes},
                         [&](size_t, uint8_t* block, uint32_t lo) {
                           InsertBlock(block, lo, lane_sets);
                         });
}

bool AddOne(const FilterRef& f, uint8_t* bits, uint64_t hash) {
  return AddBlock(bits + BlockIndex(hash, f.num_blocks) * kBlockBytes,
                  static_cast<uint32_t>(hash), f.lane_sets);
}

size_t AddBatch(const FilterRef& f, uint8_t* bits, const uint64_t* hashes,
                size_t n, bool* added) {
  size_t count = 0;
  ForEachPrefetchedBlock(bits, f.num_blocks, n, HashArray{hashes},
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

#undef BLOCKBLOOM_ONE_PROBE_KEY_BITS

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::internal
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace blockbloom::internal {

HWY_EXPORT(GetKernels);

const Kernels* ActiveKernels() {
  return HWY_DISPATCH_TABLE(GetKernels)[ChosenIndex()]();
}

// Other lane widths: the scalar reference (src/core/probe_small.cc). A Filter
// of one block of other lanes uses the SIMD kernels of src/core/probe_small.cc
// (it knows its spread-lane geometry; a bare FilterRef may not).
const Kernels* KernelsFor(uint32_t lane_bits) {
  return lane_bits == kLaneBits ? ActiveKernels() : ScalarLaneKernels();
}

}  // namespace blockbloom::internal
#endif  // HWY_ONCE
