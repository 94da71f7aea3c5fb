// The in-place encoding (docs/FORMAT.md): a standard Bloom filter, k bits
// anywhere in its bits (src/core/layout.h, "In-place filters"), followed by ONE
// tag byte, and nothing else: no checksum, no seed, no whitening. It is what
// the LevelDB policy writes by default, and this is its probe, which reads the
// caller's bytes where they are: no copy, no cache, no allocation, no lock.
//
// Why no checksum: the engine already has one. LevelDB reads a table's
// filter block once, when the table is opened, and verifies its CRC32C when
// `paranoid_checks` is set (a failed read leaves the table without a filter:
// fail open); RocksDB verifies every block it reads. A checksum inside the
// filter is paid again on every probe or on a per-thread copy, and with
// thousands of filters those copies were what made LevelDB reads slower than
// its built-in filter (docs/BENCHMARKS.md, "LevelDB").
//
// The probe reads the tag (the filter's last byte, as LevelDB's built-in
// reads its k there), hashes the key and tests the key's bits two at a time;
// why, with the measurements, is beside InPlaceMayContainHash below.
#ifndef BLOCKBLOOM_SRC_EXACT_SIZE_IN_PLACE_H_
#define BLOCKBLOOM_SRC_EXACT_SIZE_IN_PLACE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "src/core/key_hash.h"
#include "src/core/layout.h"

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
inline constexpr uint64_t kInPlaceMinPayloadBytes = kSpreadMinBytes;
inline constexpr uint64_t kInPlaceMaxPayloadBytes = kSpreadMaxBytes;

inline constexpr bool IsInPlaceTag(uint8_t tag) {
  return (tag & 0xF0) == kInPlaceTag;
}

// Whether a block with an in-place tag has a size the encoding allows.
inline constexpr bool InPlaceSizeValid(size_t block_bytes) {
  return block_bytes >= kInPlaceMinPayloadBytes + kInPlaceTrailerBytes &&
         block_bytes <= kInPlaceMaxPayloadBytes + kInPlaceTrailerBytes;
}

// Whether the in-place filter of `payload_bytes` bytes of bits (valid size)
// and k probes may contain the key of `hash`: its k bits (src/core/layout.h,
// StandardBit) tested two at a time, both loaded before one branch on the
// pair (an odd k tests its last bit alone).
//
// Why (bench/leveldb/leveldb_many_filters and the variants beside it, 36-key
// filters back to back, time per probe against the built-in's; the figures
// are in docs/BENCHMARKS.md, "How the probe was chosen"): spread lanes or
// one bit per branch were slower, k bits anywhere two bits per branch (this)
// the fastest on absent keys and at the built-in's time on present keys
// (every bit tested), where spread lanes were much slower. Half the bits of
// a well-sized filter are set, so a
// branch on one bit is a coin toss the predictor loses half the time; on
// two bits it is right three times in four. None of the bits depends on the
// tag but for k, so every load can start before the tag's cache line
// arrives, as the built-in's first bit does.
inline bool InPlaceMayContainHash(const uint8_t* bits, size_t payload_bytes,
                                  int k, uint64_t hash) {
  const uint32_t num_bits = static_cast<uint32_t>(8 * payload_bytes);
  const uint32_t lo = static_cast<uint32_t>(hash);
  const uint32_t high = static_cast<uint32_t>(hash >> 32);
  const auto bit_of = [&](uint32_t j) {
    const uint32_t bit = StandardBit(num_bits, lo, high, j);
    return (bits[bit >> 3] >> (bit & 7)) & 1;
  };
  for (uint32_t j = 0;; j += 2) {
    // Both loads are issued before k is looked at (bit j + 1 beyond k is
    // still a bit of the filter: in bounds, its answer unused).
    const int first = bit_of(j);
    const int second = bit_of(j + 1);
    if (k == 1) return first != 0;
    if ((first & second) == 0) return false;
    k -= 2;
    if (k == 0) return true;
  }
}

// The probe of a whole block by key, for a caller that has read its tag and
// knows it is an in-place one (0x00-0x0F: k = tag + 1). Fails open: a block
// of a size the encoding does not have answers "may match".
inline bool InPlaceMayMatchTag(const uint8_t* block, size_t block_bytes,
                               uint8_t tag, uint64_t seed,
                               std::string_view key) {
  if (!InPlaceSizeValid(block_bytes)) return true;
  return InPlaceMayContainHash(block, block_bytes - kInPlaceTrailerBytes,
                               tag - kInPlaceTag + 1, Hash64(key, seed));
}

// The same for any block (payload and tag): one that is not an in-place
// filter answers "may match".
inline bool InPlaceMayMatch(const uint8_t* block, size_t block_bytes,
                            uint64_t seed, std::string_view key) {
  if (block_bytes == 0 || !IsInPlaceTag(block[block_bytes - 1])) return true;
  return InPlaceMayMatchTag(block, block_bytes, block[block_bytes - 1], seed,
                            key);
}

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_EXACT_SIZE_IN_PLACE_H_
