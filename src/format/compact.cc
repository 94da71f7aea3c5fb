// The compact encoding: bits | [seed u64] | crc16 | tag, for canonical
// shapes (the size gives the shape, the tag k).
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/core/layout.h"
#include "src/format/crc16.h"
#include "src/format/encoding.h"

namespace blockbloom::internal::format {
namespace {

constexpr size_t kCompactTrailerBytes = 3;  // crc16, tag
constexpr size_t kSeedBytes = 8;

// A CRC-16 (src/format/crc16.h) of two bytes, because the compact encoding
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
  const bool has_seed = (tag & 0xF0) == kCompactSeededTag;
  const size_t overhead = kCompactTrailerBytes + (has_seed ? kSeedBytes : 0);
  if (n < overhead) {
    return Corrupt(absl::StrCat("truncated: ", n, " bytes, a compact filter",
                                has_seed ? " with a seed" : "",
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
  info.major_version = kMajorVersion;
  info.minor_version = 0;  // the compact encoding has no minor versions
  info.shape.num_probes = (tag & 0x0F) + 1;
  info.seed = has_seed ? Get<uint64_t>(block.data() + n - overhead) : 0;
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

void AppendCompact(const Filter& filter, std::string* dst) {
  const absl::Span<const uint8_t> bits = filter.bits();
  const size_t start = dst->size();
  const bool has_seed = filter.seed() != 0;
  dst->append(reinterpret_cast<const char*>(bits.data()), bits.size());
  uint8_t tail[kSeedBytes + kCompactTrailerBytes];
  uint8_t* p = tail;
  if (has_seed) {
    Put<uint64_t>(p, filter.seed());
    p += kSeedBytes;
  }
  p[2] = static_cast<uint8_t>((has_seed ? kCompactSeededTag : kCompactTag) +
                              filter.num_probes() - 1);
  p += kCompactTrailerBytes;
  dst->append(reinterpret_cast<const char*>(tail), p - tail);
  // The CRC covers the whole block but the CRC itself.
  uint8_t* block = reinterpret_cast<uint8_t*>(dst->data()) + start;
  const size_t n = dst->size() - start;
  Put<uint16_t>(block + n - 3, CompactChecksum({block, n}));
}

}  // namespace blockbloom::internal::format
