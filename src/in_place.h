// The in-place encoding (docs/FORMAT.md): a one-block Bloom filter with
// spread lanes (src/layout.h) followed by ONE tag byte, and nothing else: no
// checksum, no seed, no whitening. It is what the LevelDB policy writes by
// default, and this is its probe, which reads the caller's bytes where they
// are: no copy, no cache, no allocation, no lock.
//
// Why no checksum: the engine already has one. LevelDB reads a table's
// filter block once, when the table is opened, and verifies its CRC32C when
// `paranoid_checks` is set (a failed read leaves the table without a filter:
// fail open); RocksDB verifies every block it reads. A checksum inside the
// filter is paid again on every probe or on a per-thread copy, and with
// thousands of filters those copies were what made LevelDB reads slower than
// its built-in filter (docs/BENCHMARKS.md, "LevelDB").
//
// Why this probe (measured, docs/BENCHMARKS.md): LevelDB packs its filters
// back to back, unaligned, so a 46-byte filter (36 keys at 10 bits/key)
// straddles two cache lines most of the time. The probe reads the tag (the
// filter's last byte) first, as LevelDB's built-in reads its k there, and
// then tests the key's lanes from the LAST to the first, exiting at the first
// clear bit: the first bit tested is the one nearest the tag, so most absent
// keys are rejected without touching a second cache line. Half the bits of a
// well-sized filter are set, so an absent key tests about two bits.
#ifndef BLOCKBLOOM_SRC_IN_PLACE_H_
#define BLOCKBLOOM_SRC_IN_PLACE_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "src/hash_inl.h"
#include "src/layout.h"

namespace blockbloom::internal {

// The tag is k - 1, k in [1, 16]: 0x00-0x0F. A reader of an older version
// sees "not a blockbloom filter" and fails open. And it is the only range of
// 16 tags that no single flipped bit reaches from a checksummed encoding's
// tag (0x90-0xFE: each has bit 7 and one of bits 4-6 set, so its one-bit
// neighbours below 0x90 have a high nibble of 1-8): a damaged tag of a
// checked block never turns it into an unchecked one, so those encodings
// still catch every single-bit error. (An all-zero block therefore reads as
// an in-place filter that holds nothing; LevelDB already reads a zeroed
// filter block as empty filters, which match nothing, with any policy.)
inline constexpr uint8_t kInPlaceTag = 0x00;
inline constexpr uint64_t kInPlaceTrailerBytes = 1;
// At least 2 bytes of bits (every spread lane gets a bit), at most 2^28
// (bit positions stay below 2^31, as in the other one-block encodings).
inline constexpr uint64_t kInPlaceMinPayloadBytes = 2;
inline constexpr uint64_t kInPlaceMaxPayloadBytes = uint64_t{1} << 28;

inline constexpr bool IsInPlaceTag(uint8_t tag) {
  return (tag & 0xF0) == kInPlaceTag;
}

// Whether a block with an in-place tag has a size the encoding allows.
inline constexpr bool InPlaceSizeValid(size_t block_bytes) {
  return block_bytes >= kInPlaceMinPayloadBytes + kInPlaceTrailerBytes &&
         block_bytes <= kInPlaceMaxPayloadBytes + kInPlaceTrailerBytes;
}

// The lanes of each selector's affine map in the order of x (src/layout.h:
// lane(x) = a*x + b in GF(16), x = 0..15), one per 4 bits from the low end.
// A key with k probes uses lanes x = 0..k-1, so the first k entries are
// exactly LaneSet(k, selector) for EVERY k: the list can be loaded before
// the tag (which gives k) has arrived. 240 x 8 bytes.
struct LaneOrderTable {
  uint64_t lanes[kLaneSets];
};
constexpr LaneOrderTable MakeLaneOrderTable() {
  LaneOrderTable table{};
  for (uint32_t sel = 0; sel < kLaneSets; ++sel) {
    const uint32_t a = sel / 16 + 1, b = sel % 16;
    for (uint32_t x = 0; x < kLanes; ++x) {
      table.lanes[sel] |= uint64_t{Gf16Multiply(a, x) ^ b} << (4 * x);
    }
  }
  return table;
}
alignas(64) inline constexpr LaneOrderTable kLaneOrderTable =
    MakeLaneOrderTable();

// Whether the in-place filter of `payload_bytes` bytes of bits (valid size)
// and k probes may contain the key of `hash`. Its lanes are tested two at a
// time (both bits loaded, one branch for the pair; an odd k tests its last
// lane alone), in the order of x.
//
// Why (bench/leveldb_many_filters, 36-key filters back to back, ns per
// absent-key probe against the built-in's, one run; docs/BENCHMARKS.md):
//   one lane per branch, last lane first       1.04x (100 filters), 1.16x
//                                               (17,554)
//   all k lanes, one branch                    1.02x, 1.53x
//   two lanes per branch, last lanes first     0.72x, 0.91x
//   two lanes per branch, in x order (this)    0.75x, 0.81x
// Half the bits are set, so a branch on one bit is a coin toss the
// predictor loses half the time; on two bits it is right three times in
// four, and a probe costs one misprediction in four instead of one in two.
// Taking lanes in x order lets the list be loaded without waiting for the
// tag: with thousands of filters the tag's cache line is often a miss, and
// the built-in also starts its first bit's load before knowing its k. Going
// from the last lane (nearest the tag, usually in its cache line) saves
// lines but waits for k; the wait costs more.
inline bool InPlaceMayContainHash(const uint8_t* bits, size_t payload_bytes,
                                  int k, uint64_t hash) {
  const uint32_t num_bits = static_cast<uint32_t>(8 * payload_bytes);
  const uint32_t lo = static_cast<uint32_t>(hash);
  const uint32_t high = static_cast<uint32_t>(hash >> 32);
  const auto bit_of = [&](uint64_t lane) {
    const uint32_t bit =
        SpreadBit(num_bits, lo, high, static_cast<uint32_t>(lane & 15));
    return (bits[bit >> 3] >> (bit & 7)) & 1;
  };
  for (uint64_t lanes = kLaneOrderTable.lanes[Selector(lo)];; lanes >>= 8) {
    // Both loads are issued before k is looked at (a lane beyond k is
    // still a lane of the filter: in bounds, its answer unused).
    const int first = bit_of(lanes);
    const int second = bit_of(lanes >> 4);
    if (k == 1) return first != 0;
    if ((first & second) == 0) return false;
    k -= 2;
    if (k == 0) return true;
  }
}

// The probe of a whole block (payload and tag) by key. Fails open: a block
// that is not an in-place filter of a valid size answers "may match".
inline bool InPlaceMayMatch(const uint8_t* block, size_t block_bytes,
                            uint64_t seed, std::string_view key) {
  if (!InPlaceSizeValid(block_bytes)) return true;
  const uint8_t tag = block[block_bytes - 1];
  if (!IsInPlaceTag(tag)) return true;
  return InPlaceMayContainHash(block, block_bytes - kInPlaceTrailerBytes,
                               (tag & 0x0F) + 1, Hash64(key, seed));
}

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_IN_PLACE_H_
