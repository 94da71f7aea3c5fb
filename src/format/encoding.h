// The filter file format's encodings (docs/FORMAT.md is the spec; these
// files are its reference implementation), one per file: the blocked
// kind's here (compact.cc, full.cc), the other kinds' in their folders
// (src/exact_size: accurate_encoding.cc, in_place_encoding.cc; src/ribbon:
// encoding.cc); format.cc reads the tag and dispatches. Every integer is
// little-endian. The last byte of every blockbloom filter block is a tag that
// says what the block holds before anything else is read:
//
//   0xB0 + (major - 1)        full encoding:    payload | 56-byte footer
//   0xC0 + (k - 1)            compact, seed 0:  bits | crc16 | tag
//   0xD0 + (k - 1)            compact, seeded:  bits | seed u64 | crc16 | tag
//   0x60 + (k - 1)            compact, origin:  bits | num_keys u32 |
//                             origin u16 | crc16 | tag (v7; 0x50 + (k - 1):
//                             with the seed u64 before num_keys)
//   0x00 + (k - 1)            in-place:         bits | tag          (no crc)
//   0x90 + l, l <= 14         accurate, set:      set* | crc16 | tag  (v3)
//   0x9F                      ribbon: payload | layers | 44-byte footer (v5)
//   0x7F                      ribbon: payload | layers | short footer (v6)
//   0xA0 + (k - 1)            accurate, spread:   bits* | crc16 | tag (v3)
//   0xE0 + (k - 1)            accurate, spread:   bits | crc16 | tag  (v2)
//   0xF0 + l, l <= 14         accurate, set:      set | crc16 | tag  (v2)
//   0x30 - 0x3F               kinds registered at run time (registry.h)
//   0xFF                      reserved for a later encoding
// (*: the first 8 bytes whitened, see src/exact_size/accurate_encoding.cc.)
#ifndef BLOCKBLOOM_SRC_FORMAT_ENCODING_H_
#define BLOCKBLOOM_SRC_FORMAT_ENCODING_H_

#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "src/core/aligned_buffer.h"
#include "src/core/block_bytes.h"

namespace blockbloom::internal::format {

inline constexpr int kMajorVersion = 1;
inline constexpr uint8_t kFullTag = 0xB0;           // + major - 1
inline constexpr uint8_t kCompactTag = 0xC0;        // + k - 1
inline constexpr uint8_t kCompactSeededTag = 0xD0;  // + k - 1
// The compact encoding with an origin (version 7; compact.cc says why these
// tags), without and with a seed.
inline constexpr uint8_t kCompactOriginTag = 0x60;        // + k - 1
inline constexpr uint8_t kCompactOriginSeededTag = 0x50;  // + k - 1
inline constexpr uint8_t kReservedTag = 0xFF;             // a later encoding
// 0x9F (reserved for a later encoding by version 3) and 0x7F: the ribbon
// encoding's, src/ribbon/encoding.h (encoding.cc there says why).
// 0x90-0xAF and 0xE0-0xFE: the accurate encoding's, 0x00-0x0F the in-place
// encoding's: src/exact_size/encoding.h.
// The format version that added the compact encoding's origin: the newest.
inline constexpr int kCompactOriginVersion = 7;
inline constexpr int kNewestVersion = kNewestFormatVersion;
static_assert(kCompactOriginVersion == kNewestVersion);

// A parsed, validated trailer or footer and where the payload is.
struct Parsed {
  FilterInfo info;
  absl::Span<const uint8_t> payload;
};

// Each encoding's reader: validates the block whose tag says it is of that
// encoding (checksum first when options.verify_checksum).
absl::StatusOr<Parsed> ParseCompact(absl::Span<const uint8_t> block,
                                    const ReadOptions& options);
// The full encoding written a piece at a time (the Redis module's BB.DUMP
// streams a filter it does not hold in one buffer): the footer's fields,
// the footer, and the checksum started from the footer and then updated
// with the payload in order; SetFullChecksum stores its low 32 bits.
inline constexpr size_t kFullFooterBytes = 56;
struct FullFooterFields {
  uint64_t num_blocks = 0;
  uint64_t num_keys = 0;
  uint64_t seed = 0;
  uint64_t bits_bytes = 0;
  uint64_t payload_bytes = 0;
  int num_probes = 0;
  int lane_bits = 32;
  bool zstd = false;
};
// `origin` is written in bytes 46-47 (minor version 1) if recorded; minor
// version 0 and zeros otherwise, so blocks without one are those of 1.0.
void WriteFullFooter(const FullFooterFields& fields,
                     uint8_t footer[kFullFooterBytes],
                     const FilterOrigin& origin = {});
void StartFullChecksum(const uint8_t* footer, XXH3_state_t* state);
void SetFullChecksum(uint32_t checksum, uint8_t* footer);

absl::StatusOr<Parsed> ParseFull(absl::Span<const uint8_t> block,
                                 const ReadOptions& options);

// Each encoding's writer: appends `filter` to *dst (AppendFilter checked
// that the encoding holds it).
// With a recorded `origin`, the tags of version 7 (the filter's key count
// must fit in 32 bits then).
void AppendCompact(const Filter& filter, const FilterOrigin& origin,
                   std::string* dst);
absl::Status AppendFull(const Filter& filter, const WriteOptions& options,
                        std::string* dst, uint64_t* payload_bytes);

// The compact encoding holds only the shapes the sizing functions give; the
// one a compact block of `bytes` bytes of bits holds, or false.
bool CanonicalShape(uint64_t bytes, FilterShape* shape);
// Validates a shape read from a block.
absl::Status CheckShape(const FilterShape& shape);
// Filters under this many bytes of bits go compact under Encoding::kAuto.
inline constexpr uint64_t kAutoCompactMaxBytes = 1024;

// The bytes AppendFilter writes, uncompressed under Encoding::kAuto, for a
// blocked filter of `bits_bytes` bytes of bits (a shape the sizing
// functions give) with these seed and origin (src/ribbon/encoding.h has the
// ribbon's).
uint64_t BlockedBlockBytes(uint64_t bits_bytes, uint64_t seed,
                           const FilterOrigin& origin);

// A full block's zstd payload, checked against its footer and decompressed.
absl::StatusOr<std::unique_ptr<AlignedBuffer>> Decompress(const Parsed& parsed);

}  // namespace blockbloom::internal::format

#endif  // BLOCKBLOOM_SRC_FORMAT_ENCODING_H_
