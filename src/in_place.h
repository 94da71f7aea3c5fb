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

// Whether the in-place filter of `payload_bytes` bytes of bits (valid size)
// and k probes may contain the key of `hash`: the key's lanes, last first,
// each tested as soon as its bit is known.
inline bool InPlaceMayContainHash(const uint8_t* bits, size_t payload_bytes,
                                  int k, uint64_t hash) {
  const uint32_t num_bits = static_cast<uint32_t>(8 * payload_bytes);
  const uint32_t lo = static_cast<uint32_t>(hash);
  const uint32_t high = static_cast<uint32_t>(hash >> 32);
  uint32_t set = LaneSetsFor(k)[Selector(lo)];
  do {
    const uint32_t lane = 31 - static_cast<uint32_t>(std::countl_zero(set));
    set ^= 1u << lane;
    const uint32_t bit = SpreadBit(num_bits, lo, high, lane);
    if (((bits[bit >> 3] >> (bit & 7)) & 1) == 0) return false;
  } while (set != 0);
  return true;
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
