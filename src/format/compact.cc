// The compact encoding: bits | [seed u64] | [num_keys u32, origin u16] |
// crc16 | tag, for canonical shapes (the size gives the shape, the tag k and
// what is stored).
//
// The origin (version 7, tags 0x60 and 0x50 + k - 1): an engine adapter
// that records where each filter was built (the RocksDB adapter's learned
// plan counts probes by it) wrote small filters in the full encoding, the
// only other one that held an origin, whose footer is 56 bytes: 0.6-0.9
// bits/key for the ~500-700-key tables of small RocksDB trees, against 9
// bytes here (the trailer's 3, the origin, and the key count, which the
// adapter's counters need for each level's live keys). Why these tags: like
// every checked tag (docs/FORMAT.md, "The tag"), each has two of bits 4-7 set,
// so no single flipped bit turns one into an unchecked in-place tag; and they
// were free.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/core/crc16.h"
#include "src/core/layout.h"
#include "src/format/encoding.h"

namespace blockbloom::internal::format {
namespace {

constexpr size_t kCompactTrailerBytes = 3;  // crc16, tag
constexpr size_t kSeedBytes = 8;
constexpr size_t kOriginBytes = 2 + 4;  // origin u16, num_keys u32

// A CRC-16 (src/core/crc16.h) of two bytes, because the compact encoding
// exists for filters of ~40-150 keys, where each byte costs 0.05-0.2 bits per
// key; the shape is not stored at all (the compact encoding holds only
// canonical shapes, which its size gives: CanonicalShape) and k rides in the
// tag. It covers everything before it and the tag after it.
uint16_t CompactChecksum(absl::Span<const uint8_t> block) {
  const size_t n = block.size();
  return Crc16(Crc16(0xFFFF, block.data(), n - 3), block.data() + n - 1, 1);
}

}  // namespace

// The shape a compact block of `bytes` bytes of bits holds: the one the
// sizing functions give a filter of that many bits. Up to 1 KiB, one block
// of 16 lanes of bytes / 2 bits; beyond, 64-byte blocks of 32-bit lanes.
// False if `bytes` is not such a size.
bool CanonicalShape(uint64_t bytes, FilterShape* shape) {
  if (bytes == 0) return false;
  if (bytes * 8 <= internal::kSmallFilterMaxBits) {
    if (bytes % 2 != 0) return false;
    shape->num_blocks = 1;
    shape->lane_bits = static_cast<int>(bytes / 2);
    return true;
  }
  if (bytes % 64 != 0 || bytes / 64 > FilterShape::kMaxBlocks) return false;
  shape->num_blocks = bytes / 64;
  shape->lane_bits = 32;
  return true;
}

absl::StatusOr<Parsed> ParseCompact(absl::Span<const uint8_t> block,
                                    const ReadOptions& options) {
  const size_t n = block.size();
  const uint8_t tag = block[n - 1];
  const uint8_t range = tag & 0xF0;
  const bool has_seed =
      range == kCompactSeededTag || range == kCompactOriginSeededTag;
  const bool has_origin =
      range == kCompactOriginTag || range == kCompactOriginSeededTag;
  const size_t overhead = kCompactTrailerBytes + (has_seed ? kSeedBytes : 0) +
                          (has_origin ? kOriginBytes : 0);
  if (n < overhead) {
    return Corrupt(absl::StrCat("truncated: ", n, " bytes, a compact filter",
                                has_seed ? " with a seed" : "",
                                has_origin ? " with an origin" : "",
                                " has at least ", overhead));
  }
  if (options.verify_checksum) {
    const uint16_t stored = Get<uint16_t>(block.data() + n - 3);
    const uint16_t crc = CompactChecksum(block);
    if (crc != stored) {
      return Corrupt(absl::StrFormat(
          "checksum mismatch (compact encoding): stored 0x%04x, computed "
          "0x%04x",
          stored, crc));
    }
  }
  Parsed p;
  FilterInfo& info = p.info;
  info.encoding = Encoding::kCompact;
  // Version 1's tags report the format's major version, as they always
  // did; the origin's, the format version that added them (as the accurate
  // and ribbon encodings do). No minor versions: a change is a new range.
  info.major_version = has_origin ? kCompactOriginVersion : kMajorVersion;
  info.minor_version = 0;
  info.shape.num_probes = (tag & 0x0F) + 1;
  info.seed = has_seed ? Get<uint64_t>(block.data() + n - overhead) : 0;
  if (has_origin) {
    info.origin = UnpackOrigin(Get<uint16_t>(block.data() + n - 3 - 2));
    info.num_keys_known = true;
    info.num_keys = Get<uint32_t>(block.data() + n - 3 - 2 - 4);
  }
  const uint64_t payload_bytes = n - overhead;
  if (!CanonicalShape(payload_bytes, &info.shape)) {
    return Corrupt(absl::StrCat(
        "inconsistent sizes: ", payload_bytes,
        " bytes of bits is not the size of a compact filter (an even number "
        "up to 1024, or a multiple of 64)"));
  }
  if (absl::Status s = CheckShape(info.shape); !s.ok()) return s;
  info.compression = Compression::kNone;
  info.bits_bytes = info.payload_bytes = payload_bytes;
  info.overhead_bytes = overhead;
  info.total_bytes = n;
  p.payload = block.subspan(0, payload_bytes);
  return p;
}

uint64_t BlockedBlockBytes(uint64_t bits_bytes, uint64_t seed,
                           const FilterOrigin& origin) {
  // AppendFilter's choice under Encoding::kAuto, uncompressed.
  if (bits_bytes >= kAutoCompactMaxBytes) {
    return bits_bytes + kFullFooterBytes;
  }
  return bits_bytes + (seed != 0 ? kSeedBytes : 0) +
         (origin.recorded() ? kOriginBytes : 0) + kCompactTrailerBytes;
}

void AppendCompact(const Filter& filter, const FilterOrigin& origin,
                   std::string* dst) {
  const absl::Span<const uint8_t> bits = filter.bits();
  const size_t start = dst->size();
  const bool has_seed = filter.seed() != 0;
  const bool has_origin = origin.recorded();
  dst->append(reinterpret_cast<const char*>(bits.data()), bits.size());
  uint8_t tail[kSeedBytes + kOriginBytes + kCompactTrailerBytes];
  uint8_t* p = tail;
  if (has_seed) {
    Put<uint64_t>(p, filter.seed());
    p += kSeedBytes;
  }
  if (has_origin) {
    Put<uint32_t>(p, static_cast<uint32_t>(filter.num_keys()));
    Put<uint16_t>(p + 4, PackOrigin(origin));
    p += kOriginBytes;
  }
  const uint8_t range =
      has_origin ? (has_seed ? kCompactOriginSeededTag : kCompactOriginTag)
                 : (has_seed ? kCompactSeededTag : kCompactTag);
  p[2] = static_cast<uint8_t>(range + filter.num_probes() - 1);
  p += kCompactTrailerBytes;
  dst->append(reinterpret_cast<const char*>(tail), p - tail);
  // The CRC covers the whole block but the CRC itself.
  uint8_t* block = reinterpret_cast<uint8_t*>(dst->data()) + start;
  const size_t n = dst->size() - start;
  Put<uint16_t>(block + n - 3, CompactChecksum({block, n}));
}

}  // namespace blockbloom::internal::format
