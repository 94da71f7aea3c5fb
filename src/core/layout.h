// The one derivation of where a key's bits live. The scalar reference, every
// Highway target, the builder and the sizing math use these definitions and
// nothing else; changing any constant here changes the on-disk format.
//
// Layout
// ------
// A filter is `num_blocks` blocks of 16 lanes of w bits; w = 32 (a 512-bit
// block, one 64-byte cache line) except in small filters (below). Bit j of
// lane L of block B is bit (B*16*w + L*w + j) of the filter's bytes, counting
// from the least significant bit of byte 0: with w = 32 a lane is a
// little-endian 32-bit word. A key is a 64-bit hash h:
//
//   block    = (h >> 32) * num_blocks >> 32          (multiply-shift range
//              reduction: any num_blocks in [1, 2^32], no power-of-two
//              rounding, no division; Lemire 2019, "fastrange")
//   lo       = h & 0xffffffff
//   selector = uint32(lo * kSelectorSalt) * 240 >> 32  (in [0, 240))
//   a, b     = selector / 16 + 1, selector % 16      (a in [1, 15], b in [0,
//   15]) lanes    = { a * x + b : x = 0 .. k-1 }           (arithmetic in
//   GF(16)) bit in lane L = (lo * kLaneSalt[L]) >> 27        (5 bits: 0 .. 31)
//
// The key sets (or, for a probe, requires) bit `bit(L)` of lane L for each of
// its k lanes: exactly one bit in each of k DISTINCT lanes ("split").
// GF(16) is GF(2)[x]/(x^4 + x + 1): lane numbers are its 16 elements, "+" is
// XOR and "*" is carry-less multiplication reduced by 0b10011. x -> a*x + b is
// a bijection for a != 0, so the k lanes are distinct.
//
// Why these lanes (the accuracy argument)
// ---------------------------------------
// With k FIXED lanes (the Parquet/Impala layout: 8 lanes, one bit each) every
// key loads the same lanes, and the false-positive rate is that of a split
// filter: 1.05% at 10 bits/key, worse than a one-line Bloom filter that places
// k bits anywhere in the 512 (about 0.96%, RocksDB's FastLocalBloom).
// Choosing the k lanes per key spreads the load: a lane is used by a key with
// probability k/16, so a given bit is set by a given other key with
// probability (k/16)(1/32) = k/512, as in a one-line Bloom filter. What is
// left is how the key's lane SETS overlap: a probe fails when its k lanes are
// all filled, and lanes that tend to be chosen together fill together. The
// best is a uniformly random k-subset of the 16 lanes; the question is how
// close a small table of subsets (cheap to look up in a kernel) can get.
// Exact rates for 10 bits/key, k = 6 (the formula of src/core/sizing.cc, which
// the accuracy tests confirm within 3 sigma):
//
//   lane sets                                          FPR     sets
//   k consecutive lanes from a hashed start           ~1.05%    16
//   Z/16 strides {s + j*t mod 16}, t odd              0.9719%   64 distinct
//   256 random k-subsets (a seeded table)             0.9744%  256
//   GF(16) affine images {a*x + b} of {0..k-1}        0.9624%  240
//   every k-subset, uniformly                         0.9624%  8008
//   (bits anywhere in the line, FastLocalBloom)       0.957%    -
//
// The affine maps of GF(16) form a sharply 2-transitive group: every pair of
// lanes lies in the same number of a key's lane sets (k(k-1) of the 240), as
// with uniform subsets, while Z/16 strides are not (lanes 8 apart pair up
// more often) and a random table is only balanced on average. At every
// bits/key from 6 to 20 the affine sets match uniform subsets to 4 digits.
// The table is 240 entries of 16 bits for the filter's k (480 bytes in L1).
//
// Small filters: one block of wider or narrower lanes
// ---------------------------------------------------
// A storage engine may build a filter per data block, for ~37-140 keys
// (LevelDB). Rounding 370 bits up to a 512-bit block would cost 4 bits/key,
// and spreading 140 keys over 3 blocks would add the cost of uneven block
// loads (the binomial in src/core/sizing.cc) for no speed gain: such a filter
// is in cache anyway. So a filter of at most kSmallFilterMaxBits bits is ONE
// block of 16 lanes of w = ceil(bits / 16) bits (1 <= w <= 512): its size
// rounds up to 16 bits, and its rate is that of a split filter over all its
// bits, within 2% of a standard Bloom filter of the same size. Everything
// else is unchanged (same lane sets, same bit formula with w), so the sizing
// math covers both.
//
// One-block filters of any number of bits ("spread lanes")
// --------------------------------------------------------
// The accurate encoding (docs/FORMAT.md) sizes a filter to the byte, so its m
// bits need not be a multiple of 16: lane L is bits [start(L), start(L+1))
// with start(L) = floor(L * m / 16), so lanes are floor(m/16) or
// ceil(m/16) bits wide, and the bit in lane L is the same multiply-shift
// with that lane's width. When 16 divides m this IS the small-filter layout
// above (start(L) = L * w), which is why one SIMD kernel
// (src/core/probe_small.cc, a gather of the k words) serves both. The accurate
// encoding's spread lanes differ in one term: each lane's mix is lo *
// kLaneSalt[L] + (h >> 32). A one-block filter has no block index to spend the
// high half of the hash on, and without it a key's whole pattern would be a
// function of lo: two keys with equal low halves would match, a false-positive
// floor of n / 2^32 (2.3e-5 for a 100,000-key filter, 30x what 30 bits/key
// buy). Lanes may be wider than 512 bits here: the accurate encoding uses one
// block for filters of any size (LevelDB probes each of its filters as a whole;
// a 100,000-key filter of 125 KB is still one block of 16 lanes, i.e. a
// partitioned Bloom filter).
//
// In-place filters: k bits anywhere
// ----------------------------------
// The in-place encoding (src/exact_size/in_place.h, LevelDB's default) is
// probed where LevelDB keeps it, one key at a time, with no state of its own,
// so the cost per bit decides its speed. It drops the lanes and places the
// key's k bits anywhere in the filter's m bits (a standard Bloom filter), bit j
// (j = 0 .. k-1) at
//
//   (uint64(uint32(lo * kLaneSalt[j] + (h >> 32))) * m) >> 32
//
// the same per-lane mix as spread lanes (the salt of "lane" j, the high half
// added), range-reduced over the whole filter: one multiply for the mix and
// one for the position, no lane set, no lane start or width. Measured against
// spread lanes probed the same way (two bits per branch): faster on absent
// keys, and at the built-in's time on present keys (all k bits tested) where
// spread lanes were much slower (docs/BENCHMARKS.md, "How the probe was
// chosen"). A standard
// Bloom filter is also at least as accurate as a partitioned one of the same
// size (the lanes' partition costs up to a few percent on small filters).
// The k mixes are salted multiplies of one 64-bit hash, not k independent
// hashes; the FPR tests against LevelDB's built-in and against the exact
// rate confirm they behave as such (tests/leveldb/leveldb_bloom_test.cc).
//
// Why these hash bits
// -------------------
// The block uses the high 32 bits; everything inside the block uses the low
// 32 bits, so the block and the in-block pattern are independent. Each lane's
// bit and the selector are the top bits of lo times a different odd constant
// (as the Parquet split block filter does with 8 salts): one vector multiply
// and one shift give all 16 lanes' bit numbers at once. The constants are the
// first 32 fractional bits of the cube roots of the first 17 primes (the
// SHA-256 round constants K[0..16]), made odd: nothing up our sleeve.
// A filter has at most 2^32 blocks (256 GiB), so the 32 bits of block choice
// are never the limit on accuracy.
#ifndef BLOCKBLOOM_SRC_CORE_LAYOUT_H_
#define BLOCKBLOOM_SRC_CORE_LAYOUT_H_

#include <bit>
#include <cstddef>
#include <cstdint>

#include "blockbloom/filter.h"
#include "blockbloom/internal/filter_ref.h"

static_assert(
    std::endian::native == std::endian::little,
    "blockbloom reads 32-bit lanes in place: little-endian hosts only");

namespace blockbloom::internal {

inline constexpr size_t kBlockBytes = 64;  // with 32-bit lanes
inline constexpr int kLanes = 16;
inline constexpr int kLaneBits = 32;
// Filters of at most this many bits are one block of wider or narrower lanes.
inline constexpr uint64_t kSmallFilterMaxBits = 8192;
inline constexpr int kMinProbes = 1;
inline constexpr int kMaxProbes = kLanes;  // one bit per distinct lane
inline constexpr uint64_t kMaxBlocks = uint64_t{1} << 32;
// The affine maps x -> a*x + b of GF(16), a != 0: 15 * 16 lane sets.
inline constexpr int kLaneSets = 240;
alignas(64) inline constexpr uint32_t kLaneSalt[kLanes] = {
    0x428a2f99, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a5, 0xab1c5ed5, 0xd807aa99, 0x12835b01, 0x243185bf, 0x550c7dc3,
    0x72be5d75, 0x80deb1ff, 0x9bdc06a7, 0xc19bf175};
inline constexpr uint32_t kSelectorSalt = 0xe49b69c1;

// Lane numbers, and lane numbers + 1: the SIMD kernels of spread lanes
// compute each lane's start and end from them.
alignas(64) inline constexpr uint32_t kLaneIndex[kLanes] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
alignas(64) inline constexpr uint32_t kLaneIndexPlusOne[kLanes] = {
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

// Bit L set in lane L: lets a kernel turn a 16-bit lane set into a lane mask.
alignas(64) inline constexpr uint32_t kLaneBit[kLanes] = {
    1u << 0,  1u << 1,  1u << 2,  1u << 3, 1u << 4,  1u << 5,
    1u << 6,  1u << 7,  1u << 8,  1u << 9, 1u << 10, 1u << 11,
    1u << 12, 1u << 13, 1u << 14, 1u << 15};

inline uint64_t BlockIndex(uint64_t hash, uint64_t num_blocks) {
  return ((hash >> 32) * num_blocks) >> 32;
}

// Which of the kLaneSets lane sets a key uses: multiply-shift range
// reduction of a second 32-bit mix of lo.
inline constexpr uint32_t Selector(uint32_t lo) {
  return static_cast<uint32_t>(
      (uint64_t{static_cast<uint32_t>(lo * kSelectorSalt)} * kLaneSets) >> 32);
}

// The bit of lane `lane` that a key uses, in [0, lane_bits): multiply-shift
// range reduction of a per-lane mix of lo. With 32-bit lanes it is the top 5
// bits of the mix, which is what the SIMD kernels compute.
inline constexpr uint32_t BitInLane(uint32_t lo, int lane,
                                    uint32_t lane_bits = kLaneBits) {
  return static_cast<uint32_t>(
      (uint64_t{static_cast<uint32_t>(lo * kLaneSalt[lane])} * lane_bits) >>
      32);
}

// Multiplication in GF(16) = GF(2)[x]/(x^4 + x + 1).
constexpr uint32_t Gf16Multiply(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (int i = 0; i < 4; ++i) {
    if ((b >> i) & 1) product ^= a << i;
  }
  for (int i = 6; i >= 4; --i) {
    if ((product >> i) & 1) product ^= 0b10011u << (i - 4);
  }
  return product;
}

// The 16-bit set of lanes {a*x + b : x < k} for one selector value.
constexpr uint16_t LaneSet(int k, uint32_t selector) {
  const uint32_t a = selector / 16 + 1;
  const uint32_t b = selector % 16;
  uint32_t set = 0;
  for (int x = 0; x < k; ++x) {
    set |= 1u << (Gf16Multiply(a, static_cast<uint32_t>(x)) ^ b);
  }
  return static_cast<uint16_t>(set);
}

// kLaneSetTable.sets[k][selector] for k in [0, 16]; row 0 is unused. 8 KiB in
// all; a filter only ever touches its own 480-byte row, which stays in L1.
struct LaneSetTable {
  uint16_t sets[kMaxProbes + 1][kLaneSets];
};
constexpr LaneSetTable MakeLaneSetTable() {
  LaneSetTable table{};
  for (int k = 1; k <= kMaxProbes; ++k) {
    for (int sel = 0; sel < kLaneSets; ++sel) {
      table.sets[k][sel] = LaneSet(k, static_cast<uint32_t>(sel));
    }
  }
  return table;
}
alignas(64) inline constexpr LaneSetTable kLaneSetTable = MakeLaneSetTable();

inline const uint16_t* LaneSetsFor(int num_probes) {
  return kLaneSetTable.sets[num_probes];
}

inline uint64_t BlockBytes(uint32_t lane_bits) {
  return 2 * uint64_t{lane_bits};
}

// The 16 lane masks a hash requires of its block with 32-bit lanes (0 for
// lanes not used): what the SIMD kernels build.
inline void BlockMask(uint32_t lo, const uint16_t* lane_sets,
                      uint32_t mask[kLanes]) {
  const uint32_t set = lane_sets[Selector(lo)];
  for (int lane = 0; lane < kLanes; ++lane) {
    const uint32_t used = (set >> lane) & 1;
    mask[lane] = used << BitInLane(lo, lane);
  }
}

// Lane `lane` of a one-block filter of `num_bits` bits with spread lanes
// (see "One-block filters of any number of bits") starts at bit
// floor(lane * num_bits / 16). Computed as lane * (num_bits / 16) +
// lane * (num_bits % 16) / 16 so that every term fits 32 bits for
// num_bits < 2^31, as in the SIMD kernels.
inline constexpr uint32_t SpreadLaneStart(uint32_t num_bits, uint32_t lane) {
  return lane * (num_bits >> 4) + ((lane * (num_bits & 15)) >> 4);
}

// The bit of lane `lane` that a key uses in a one-block filter of
// `num_bits` bits with spread lanes, as an index into the filter's bits:
// the lane's start plus a multiply-shift range reduction of the lane's mix
// into its width. `high` is the hash's high 32 bits where the layout mixes
// them in (the accurate and in-place encodings), 0 where it does not. The
// lane's start and end are SpreadLaneStart's, computed as floor(L * m / 16)
// in 64 bits: one multiply for both (the in-place probe's hot loop).
inline constexpr uint32_t SpreadBit(uint32_t num_bits, uint32_t lo,
                                    uint32_t high, uint32_t lane) {
  const uint64_t lane_times_bits = uint64_t{lane} * num_bits;
  const uint32_t start = static_cast<uint32_t>(lane_times_bits >> 4);
  const uint32_t width =
      static_cast<uint32_t>((lane_times_bits + num_bits) >> 4) - start;
  const uint32_t mix = lo * kLaneSalt[lane] + high;
  return start + static_cast<uint32_t>((uint64_t{mix} * width) >> 32);
}

// The sizes a one-block filter with spread lanes may have, in bytes: at
// least 2 (16 bits, one for every lane), at most 2^28 (bit positions stay
// below 2^31: the SIMD kernels hold them in 32-bit lanes). The accurate and
// in-place encodings, which hold such filters, take these bounds.
inline constexpr uint64_t kSpreadMinBytes = 2;
inline constexpr uint64_t kSpreadMaxBytes = uint64_t{1} << 28;

// Bit j of a key in a standard Bloom filter of `num_bits` bits (the
// in-place encoding; "In-place filters" above).
inline constexpr uint32_t StandardBit(uint32_t num_bits, uint32_t lo,
                                      uint32_t high, uint32_t j) {
  const uint32_t mix = lo * kLaneSalt[j] + high;
  return static_cast<uint32_t>((uint64_t{mix} * num_bits) >> 32);
}

// The FilterRef of each kind: what a probe reads (blockbloom/internal/
// filter_ref.h).
//
// A blocked filter of `shape` over `bits`.
inline FilterRef BlockedRef(const uint8_t* bits, const FilterShape& shape,
                            uint64_t seed) {
  FilterRef f = {bits, shape.num_blocks,
                 LaneSetsFor(shape.num_probes > 0 ? shape.num_probes : 1), seed,
                 static_cast<uint32_t>(shape.lane_bits)};
  f.kind = FilterKind::kBlocked;
  return f;
}

// ONE block of a blocked filter of `shape`, as a filter of one block: the
// kernels probe or set a hash's bits in the block the view points at,
// whichever block of the whole filter the hash maps to. For filters whose
// blocks live apart: a shared filter's blocks read with GETRANGE
// (src/redis_client), a Redis module layer's pieces (src/filter_stack).
// `block` may be set later (ref.bits), per probe.
inline FilterRef OneBlockView(const FilterShape& shape, uint64_t seed,
                              const uint8_t* block = nullptr) {
  FilterRef f = BlockedRef(block, shape, seed);
  f.num_blocks = 1;
  return f;
}

// A one-block filter of `num_bits` bits (in [16, 2^31)) with spread lanes
// and k probes; `mix_high` for the accurate encoding's (see FilterRef).
inline FilterRef SpreadRef(const uint8_t* bits, uint32_t num_bits, int k,
                           uint64_t seed, bool mix_high) {
  FilterRef f = {bits, 1, LaneSetsFor(k), seed, 0};
  f.kind = FilterKind::kSpread;
  f.num_bits = num_bits;
  f.mix_high = mix_high;
  return f;
}

// A standard Bloom filter of `num_bits` bits and k probes (the in-place
// encoding; "In-place filters" above).
inline FilterRef StandardRef(const uint8_t* bits, uint32_t num_bits, int k,
                             uint64_t seed) {
  FilterRef f = {bits, 1, LaneSetsFor(1), seed, 0};
  f.kind = FilterKind::kStandard;
  f.num_bits = num_bits;
  f.num_probes = static_cast<uint32_t>(k);
  return f;
}

// Calls fn(bit_index) for each of the key's k bits, as an index into the
// filter's bits (see "Layout" above). Valid for every lane width.
template <typename Fn>
inline void ForEachBit(const FilterRef& f, uint64_t hash, Fn fn) {
  const uint32_t lo = static_cast<uint32_t>(hash);
  if (f.kind == FilterKind::kStandard) {  // k bits anywhere
    const uint32_t high = static_cast<uint32_t>(hash >> 32);
    for (uint32_t j = 0; j < f.num_probes; ++j) {
      fn(uint64_t{StandardBit(f.num_bits, lo, high, j)});
    }
    return;
  }
  if (f.kind == FilterKind::kSpread) {  // one block of spread lanes
    const uint32_t high = f.mix_high ? static_cast<uint32_t>(hash >> 32) : 0;
    for (uint32_t set = f.lane_sets[Selector(lo)]; set != 0; set &= set - 1) {
      const uint32_t lane = static_cast<uint32_t>(std::countr_zero(set));
      fn(uint64_t{SpreadBit(f.num_bits, lo, high, lane)});
    }
    return;
  }
  const uint32_t w = f.lane_bits;
  const uint64_t first = BlockIndex(hash, f.num_blocks) * kLanes * w;
  // The key's lanes in increasing order. Looping over the set bits (k
  // iterations) instead of testing all 16 lanes avoids a data-dependent
  // branch per lane: about 8 mispredictions per key, which made this loop
  // many times slower than the SIMD probe.
  for (uint32_t set = f.lane_sets[Selector(lo)]; set != 0; set &= set - 1) {
    const int lane = std::countr_zero(set);
    fn(first + uint64_t{lane * w} + BitInLane(lo, lane, w));
  }
}

// The scalar reference: what every SIMD target must answer, bit for bit, and
// the probe of filters whose lanes are not 32 bits wide.
inline bool ReferenceMayContain(const FilterRef& f, uint64_t hash) {
  bool all = true;
  ForEachBit(f, hash,
             [&](uint64_t bit) { all &= (f.bits[bit >> 3] >> (bit & 7)) & 1; });
  return all;
}

inline void ReferenceInsert(const FilterRef& f, uint8_t* bits, uint64_t hash) {
  ForEachBit(f, hash, [&](uint64_t bit) {
    bits[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
  });
}

// ReferenceInsert that also says whether any of the key's bits was clear
// (Guava's `put` semantics: false if the filter already answered "may
// contain"). The reference of the `add_hash` kernels.
inline bool ReferenceAdd(const FilterRef& f, uint8_t* bits, uint64_t hash) {
  bool changed = false;
  ForEachBit(f, hash, [&](uint64_t bit) {
    const uint8_t mask = static_cast<uint8_t>(1u << (bit & 7));
    changed |= (bits[bit >> 3] & mask) == 0;
    bits[bit >> 3] |= mask;
  });
  return changed;
}

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_LAYOUT_H_
