// The ribbon filter (FilterKind::kRibbon): what it is, why it is this
// structure and these constants, and where its bits lie. The hash
// derivation is in key_bits.h; the byte format that wraps these bits in
// docs/FORMAT.md ("Ribbon encoding").
//
// The structure: Bumped Ribbon Retrieval (BuRR)
// ---------------------------------------------
// Ideas from Dillinger & Walzer, "Ribbon filter: practically smaller than
// Bloom and Xor" (2021) and Dillinger, Huebschle-Schneider, Sanders, Walzer,
// "Fast Succinct Retrieval and Approximate Membership using Ribbon" (SEA
// 2022); the code is our own.
//
// A filter is a stack of up to kMaxLayers LAYERS. A layer is a linear system
// over GF(2): every key it holds has a start slot s, a row of w = 64
// coefficient bits (slots s .. s+63) and result bits f; the layer stores a
// solution Z of m slots x cols bits such that for every held key and every
// column j, parity(row & Z_j[s .. s+63]) = bit j of f. A key not in the set
// matches a column with probability 1/2, all of its columns with 2^-cols.
//
// Starts are grouped in BUCKETS of kBucketSize starts, each with a 2-bit
// code; the keys of a bucket whose offset (s mod kBucketSize) is below the
// code's threshold are BUMPED: not held here but in the next layer (with the
// next layer's hash, key_bits.h). The builder picks the codes: a layer is
// OVERLOADED (about 1.05 keys per slot) and bumping takes the excess, so that
// nearly every slot holds a key. About 5% of a layer's keys go on, so layers
// shrink about 20x (10M keys: 490k, 24k, 1.2k, 60, 3); the last layer bumps
// nothing. A query looks in one layer: layer 0 for 95% of keys.
//
// Fractional rates: blocks from `upper_start` on have r + 1 columns, the
// others r, so a query starting in an upper block checks one bit more. With a
// share f of queries in upper blocks the rate is 2^-r * (1 - f/2), which
// reaches any rate between 2^-r and 2^-(r+1). (Mixing costs at most 0.086
// bits/key against 2^-(r+f): 6.72 columns instead of 6.64 at 1%, 1.2%;
// RocksDB's Ribbon mixes columns the same way and pays the same.)
//
// Why this structure (measured against RocksDB 7.8.3's Standard128Ribbon on
// the same keys, at 1% and 1M keys unless said; the prototype's REPORT,
// sections 2-6; overhead = bits/key / log2(1/rate), 1.00 is the bound):
//
//   structure                        bits/key  overhead  notes
//   RocksDB Standard128Ribbon (w=128)   7.03     1.058   1.047 at 100k,
//                                                        1.073 at 10M: w=128
//                                                        needs more slack per
//                                                        doubling of n
//   BuRR, w = 64 (this)                 6.74     1.014   1.0011 slots/key,
//                                                        flat in n
//   standard Ribbon, w = 64             7.28-7.55        1.08 (10k, 100k) to
//                                                        1.12 (1M) slots/key
//                                                        for 90% success; worse
//                                                        than w = 128
//   homogeneous Ribbon, w = 64          7.78     1.135   at load 0.90 a floor
//                                                        of 0.083% false
//                                                        positives: useless
//                                                        below ~1%
//   binary fuse, 3-wise                 7.91 at 0.78%    1.13 slots/key (1.28
//                                                        at 10k); whole-bit
//                                                        fingerprints only
//   binary fuse, 4-wise                 7.54 at 0.78%    1.077 slots/key (1.229
//                                                        at 10k); 4 random
//                                                        reads per probe
//   one cache line per key, retrieval   >= ~1.02 slots/key (estimated, not
//     (our own idea, 64 slots a line)   built): Poisson(64 * load) keys per
//                                       line leave E[(64 - X)+] slots unused,
//                                       3.2 (5%) at load 1.0; ~0.97-0.99x
//                                       Ribbon at best, and dense elimination
//                                       costs up to 64 XORs per key
//
// So BuRR takes fewer bytes than Ribbon at the same measured rate from 10k
// to 10M keys (docs/BENCHMARKS.md, "Ribbon kind"), and a query reads two
// adjacent blocks (one 16 * cols-byte span: 112 bytes at r = 7, where
// Ribbon's reads ~224).
//
// The constants
// -------------
// w = 64: one machine word per row, and BuRR's measured sweet spot; its
// slack does not grow with n as w = 128's does without bumping.
//
// kBucketSize = 128 starts: BuRR's recommendation for w = 64 with 2-bit codes
// is w^2 / (4 log2 w) = 171, rounded down to a power of two. Measured at load
// 1.05, buckets of 32 / 64 / 128 / 256 gave 23.5 / 22.9 / 21.4 / 19.6
// elimination steps per key and 1.0007 / 1.0008 / 1.0011 / 1.0067 slots per
// key: no gain over 128. Codes cost 2 bits per 128 slots (0.016 bits/slot,
// 0.23% at r = 7).
//
// Thresholds: code 3 bumps nothing, 2 offsets below kBumpLo = 13, 1 below
// kBumpHi = 38, 0 the whole bucket (0.10 and 0.30 of 128). Slots per key at
// load 1.05: 1.0011 with 0.10/0.30, 1.0036 with 0.05/0.20, 1.0013 with
// 0.15/0.40.
//
// Load (keys per slot): kLoad = 1.05 for layers of kSmallLayerKeys keys or
// more. Slots per key at loads 1.0 / 1.03 / 1.05 / 1.07 / 1.10: 1.0105 /
// 1.0023 / 1.0011 / 1.0005 / 1.0009, while elimination steps keep growing
// (14.6 per key at 1.0, 21.4 at 1.05): 1.05 is the knee. Smaller layers
// (the tail, and filters of under 2,048 keys) use kSmallLoad = 0.90 and bump
// (almost) nothing.
//
// kMaxLayers = 12: 12 layers would need ~8 further tail layers at load 0.9
// each bumping keys, vanishingly rare: in 30,000 random builds (n = 1 ..
// 3,000, 100 at 100k, 100 at 300k) the most was 4.
//
// Storage (the payload of the ribbon encoding; any alignment)
// ----------------------------------------------------------
// Layer after layer, back to back. A layer of B blocks (64 slots each) is
//   its solution words: block b holds cols(b) = r + (b >= upper_start)
//     little-endian 64-bit words, word j bit k = column j of slot 64b + k
//     (interleaved column-major, as RocksDB's Ribbon); then
//   its bump codes: ceil(buckets / 4) bytes, bucket k's code at bits
//     2 (k mod 4) of byte k / 4; buckets = ceil(B / 2).
// A layer has 64B slots and 64B - 63 starts (a row covers 64 slots); bucket
// k covers starts [128k, 128k + 128), blocks 2k and 2k + 1. A query reads
// blocks b and b + 1 of its start: one contiguous span of words. (One code
// byte before every 8 blocks, so that a query's code is in its words' page,
// measured no faster out of cache and more instructions per query. The
// codes stay apart: a byte per 8 blocks (~480 bytes of words at r = 7)
// stays in cache, and a query prefetches its words before it reads its code
// (kernels.cc), which out of cache is as fast as reading no code at all: a
// code in the words' cache line could save nothing more; docs/BENCHMARKS.md,
// "Ribbon kind".)
#ifndef BLOCKBLOOM_SRC_RIBBON_LAYOUT_H_
#define BLOCKBLOOM_SRC_RIBBON_LAYOUT_H_

#include <array>
#include <cstddef>
#include <cstdint>

namespace blockbloom::internal::ribbon {

inline constexpr int kWidth = 64;  // w: coefficient bits per row
inline constexpr int kLogBucket = 7;
inline constexpr uint32_t kBucketSize = 1u << kLogBucket;
inline constexpr int kMaxLayers = 12;
inline constexpr uint8_t kBumpLo = 13;  // 0.10 * kBucketSize
inline constexpr uint8_t kBumpHi = 38;  // 0.30 * kBucketSize
inline constexpr double kLoad = 1.05;
inline constexpr double kSmallLoad = 0.90;
inline constexpr uint64_t kSmallLayerKeys = 2048;
// Result rows are 32 bits and the builder solves r + 1 columns.
inline constexpr int kMaxResultBits = 31;
// Slot numbers are 32 bits: 64 * blocks < 2^32.
inline constexpr uint32_t kMaxBlocks = uint32_t{1} << 26;

inline uint32_t NumStarts(uint32_t num_blocks) { return num_blocks * 64 - 63; }
inline uint32_t NumBuckets(uint32_t num_blocks) { return (num_blocks + 1) / 2; }
inline size_t CodeBytes(uint32_t num_blocks) {
  return (size_t{NumBuckets(num_blocks)} + 3) / 4;
}
// Columns of block b: r, or r + 1 from upper_start on.
inline int ColumnsOfBlock(uint32_t block, uint32_t upper_start, int r) {
  return r + (block >= upper_start ? 1 : 0);
}
// Solution words before block b of a layer.
inline size_t WordsBefore(uint32_t block, uint32_t upper_start, int r) {
  return size_t{block} * static_cast<size_t>(r) +
         (block > upper_start ? block - upper_start : 0);
}
inline size_t LayerBytes(uint32_t num_blocks, uint32_t upper_start, int r) {
  return 8 * WordsBefore(num_blocks, upper_start, r) + CodeBytes(num_blocks);
}
// The code of bucket k (3: nothing bumped ... 0: everything).
inline uint32_t BucketCode(const uint8_t* codes, uint32_t bucket) {
  return (codes[bucket >> 2] >> (2 * (bucket & 3))) & 3;
}
// Keys at offsets below this in a bucket of code t are bumped.
inline constexpr uint32_t BumpThreshold(uint32_t code, uint32_t lo,
                                        uint32_t hi) {
  return code == 3 ? 0 : code == 2 ? lo : code == 1 ? hi : kBucketSize;
}

// Pre-bumping (banding.cc): a bucket whose first PreBumpSpill(n) rows are
// already taken by the previous buckets' keys starts with code 2, so that its
// lowest offsets, which would walk far and mostly fail, are bumped without an
// attempt. At 1M keys it cuts elimination steps from 22.4 to 16.9 / 14.3 /
// 11.4 per key at spills of 40 / 32 / 24 rows, for 1.0022 / 1.0032 / 1.0063
// slots per key (against 1.0012). 20 made the build at 100k keys much
// faster for 6.872 bits/key at ~0.95% (6.834 without). It is used from
// kPreBumpMinKeys keys on: below, space is tightest and builds are cheap.
// Above kPreBumpSmallMaxKeys the spill is 32, not 20: at 1M keys it saves
// most of the build time 20 saves, for 0.2% more bytes where 20 costs 0.8%
// (docs/BENCHMARKS.md, "Ribbon kind").
inline constexpr uint32_t kPreBumpSpill = 20;
inline constexpr uint32_t kPreBumpSpillLarge = 32;
inline constexpr uint64_t kPreBumpMinKeys = 50000;
inline constexpr uint64_t kPreBumpSmallMaxKeys = 400000;
inline bool PreBumps(uint64_t keys) { return keys >= kPreBumpMinKeys; }
// The spill from which a bucket of a filter of `keys` keys is pre-bumped.
inline uint32_t PreBumpSpill(uint64_t keys) {
  return keys <= kPreBumpSmallMaxKeys ? kPreBumpSpill : kPreBumpSpillLarge;
}

// Blocks of a layer for `keys` keys at `load` keys per slot: the starts
// hold keys / load keys, plus the w - 1 slots after the last start.
uint32_t BlocksForKeys(uint64_t keys, double load);
// The load the builder gives a layer of `keys` keys.
inline double LoadForKeys(uint64_t keys) {
  return keys < kSmallLayerKeys ? kSmallLoad : kLoad;
}

// Everything the format stores about a ribbon filter's bits besides the bits
// themselves (docs/FORMAT.md, "Ribbon encoding").
struct RibbonLayout {
  int result_bits = 1;  // r
  uint32_t salt = 0;
  uint8_t bump_lo = kBumpLo;
  uint8_t bump_hi = kBumpHi;
  int num_layers = 0;
  std::array<uint32_t, kMaxLayers> num_blocks{};
  std::array<uint32_t, kMaxLayers> upper_start{};
};

// Bytes of the payload the layout describes (its layers back to back).
uint64_t PayloadBytes(const RibbonLayout& layout);

}  // namespace blockbloom::internal::ribbon

#endif  // BLOCKBLOOM_SRC_RIBBON_LAYOUT_H_
