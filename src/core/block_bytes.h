// What every encoding of a filter block writes and reads alike, whichever
// kind's folder it lives in (src/format for the blocked kind, a kind's own
// folder otherwise): little-endian fields, the DataLoss error a bad block
// gives, the WriteStats a writer reports, and a filter's origin as a u16.
#ifndef BLOCKBLOOM_SRC_CORE_BLOCK_BYTES_H_
#define BLOCKBLOOM_SRC_CORE_BLOCK_BYTES_H_

#include <cstdint>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "blockbloom/format.h"

namespace blockbloom::internal {

// The newest format version (docs/FORMAT.md) this reader knows, which an
// error about a block of a later one names (src/format/encoding.h says
// which encoding it added).
inline constexpr int kNewestFormatVersion = 7;

template <typename T>
void Put(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(v));  // little-endian host (layout.h asserts)
}
template <typename T>
T Get(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// DataLoss, "blockbloom filter: " + what.
absl::Status Corrupt(const std::string& what);

// What every writer reports (WriteStats, if not null): `encoding`, the
// filter's `bits_bytes`, the `payload_bytes` they took (compressed or not),
// and the block from `start` to the end of *dst.
void FillWriteStats(Encoding encoding, uint64_t bits_bytes,
                    uint64_t payload_bytes, size_t start,
                    const std::string& dst, WriteStats* stats);

// A filter's origin as a u16 (the full footer's bytes 46-47, the ribbon
// footers' and the compact encoding's field): bits 0-4 level + 1 (0: none
// recorded), bit 5 bottommost, bits 6-15 group.
uint16_t PackOrigin(const FilterOrigin& origin);
FilterOrigin UnpackOrigin(uint16_t packed);

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_BLOCK_BYTES_H_
