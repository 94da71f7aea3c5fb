// Filter block format v3 (docs/FORMAT.md is the spec; this is its reference
// implementation). Every integer is little-endian. The last byte of every
// blockbloom filter block is a tag that says what the block holds before
// anything else is read:
//
//   0xB0 + (major - 1)        full encoding:    payload | 56-byte footer
//   0xC0 + (k - 1)            compact, seed 0:  bits | crc16 | tag
//   0xD0 + (k - 1)            compact, seeded:  bits | seed u64 | crc16 | tag
//   0x00 + (k - 1)            in-place:         bits | tag          (no crc)
//   0x90 + l, l <= 14         packed, set:      set* | crc16 | tag  (v3)
//   0x9F                      reserved for a later encoding
//   0xA0 + (k - 1)            packed, spread:   bits* | crc16 | tag (v3)
//   0xE0 + (k - 1)            packed, spread:   bits | crc16 | tag  (v2)
//   0xF0 + l, l <= 14         packed, set:      set | crc16 | tag  (v2)
//   0xFF                      reserved for a later encoding
// (*: the first 8 bytes whitened, see WhitenPacked.)

#include "blockbloom/format.h"

#include <zstd.h>

#include <array>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/core/aligned_buffer.h"
#include "src/core/key_hash.h"
#include "src/core/layout.h"
#include "src/core/probe.h"
#include "src/packed/fingerprint_set.h"
#include "src/packed/in_place.h"
#include "src/packed/packed.h"

namespace blockbloom {
namespace {

constexpr int kMajorVersion = 1;
constexpr int kMinorVersion = 0;
constexpr uint8_t kFullTag = 0xB0;           // + major - 1
constexpr uint8_t kCompactTag = 0xC0;        // + k - 1
constexpr uint8_t kCompactSeededTag = 0xD0;  // + k - 1
constexpr uint8_t kPackedSpreadTag = 0xE0;   // + k - 1 (v2)
constexpr uint8_t kPackedSetTag = 0xF0;      // + l (v2)
constexpr uint8_t kReservedTag = 0xFF;       // a later encoding
constexpr uint8_t kPacked3SetTag = 0x90;     // + l
constexpr uint8_t kPacked3ReservedTag = 0x9F;
constexpr uint8_t kPacked3SpreadTag = 0xA0;  // + k - 1
constexpr int kPackedVersion = 3;
constexpr int kPackedVersion2 = 2;

constexpr size_t kCompactTrailerBytes = 3;  // crc16, tag
constexpr size_t kSeedBytes = 8;
constexpr size_t kFullFooterBytes = 56;
// Filters under this many bytes of bits go compact under Encoding::kAuto.
constexpr uint64_t kAutoCompactMaxBytes = 1024;

// Full footer offsets.
constexpr size_t kNumBlocksAt = 0;
constexpr size_t kNumKeysAt = 8;
constexpr size_t kSeedAt = 16;
constexpr size_t kBitsBytesAt = 24;
constexpr size_t kPayloadBytesAt = 32;
constexpr size_t kNumProbesAt = 40;
constexpr size_t kHashAt = 41;
constexpr size_t kCodecAt = 42;
constexpr size_t kMinorAt = 43;
constexpr size_t kLaneBitsAt = 44;  // u16
constexpr size_t kChecksumAt = 48;
constexpr size_t kMagicAt = 52;
constexpr uint8_t kMagic[3] = {'b', 'b', 'f'};

constexpr uint8_t kHashXxh3 = 1;  // XXH3-64 with the stored seed
constexpr uint8_t kCodecNone = 0;
constexpr uint8_t kCodecZstd = 1;

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

// CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no
// reflection, no final xor). A CRC, not a truncated hash: it detects every
// single-bit error and every burst of up to 16 bits, and other damage but
// one time in 65536. Two bytes, because the compact encoding exists for
// filters of ~40-150 keys, where each byte costs 0.05-0.2 bits per key; the
// shape is not stored at all (the compact encoding holds only canonical
// shapes, which its size gives: CanonicalShape) and k rides in the tag.
// Slicing-by-8 tables: kCrc16Tables[j][b] is the CRC register after byte b
// followed by j zero bytes, so 8 bytes fold in with 8 independent lookups
// instead of a chain of 8 (the check runs on every LevelDB probe: 150 bytes
// take ~50 ns this way, ~300 ns a byte at a time).
using Crc16Tables = std::array<std::array<uint16_t, 256>, 8>;
constexpr Crc16Tables MakeCrc16Tables() {
  Crc16Tables t{};
  for (int i = 0; i < 256; ++i) {
    uint16_t crc = static_cast<uint16_t>(i << 8);
    for (int bit = 0; bit < 8; ++bit) {
      crc = static_cast<uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021
                                                 : crc << 1);
    }
    t[0][i] = crc;
  }
  for (int j = 1; j < 8; ++j) {
    for (int i = 0; i < 256; ++i) {
      const uint16_t prev = t[j - 1][i];
      t[j][i] = static_cast<uint16_t>((prev << 8) ^ t[0][prev >> 8]);
    }
  }
  return t;
}
constexpr Crc16Tables kCrc16Tables = MakeCrc16Tables();

uint16_t Crc16(uint16_t crc, const uint8_t* p, size_t n) {
  const auto& t = kCrc16Tables;
  for (; n >= 8; n -= 8, p += 8) {
    crc = t[7][p[0] ^ (crc >> 8)] ^ t[6][p[1] ^ (crc & 0xFF)] ^ t[5][p[2]] ^
          t[4][p[3]] ^ t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
  }
  for (; n > 0; --n, ++p) {
    crc = static_cast<uint16_t>((crc << 8) ^ t[0][(crc >> 8) ^ *p]);
  }
  return crc;
}

// The compact checksum covers everything before it and the tag after it.
uint16_t CompactChecksum(absl::Span<const uint8_t> block) {
  const size_t n = block.size();
  return Crc16(Crc16(0xFFFF, block.data(), n - 3), block.data() + n - 1, 1);
}

// The packed checksum covers the payload, then the 8 bytes of the seed
// (which the block does not hold: a reader with another seed sees a
// mismatch instead of misreading every key), then the tag.
uint16_t PackedChecksum(absl::Span<const uint8_t> block, uint64_t seed) {
  const size_t n = block.size();
  uint8_t seed_bytes[8];
  Put<uint64_t>(seed_bytes, seed);
  uint16_t crc = Crc16(0xFFFF, block.data(), n - internal::kPackedTrailerBytes);
  crc = Crc16(crc, seed_bytes, sizeof(seed_bytes));
  return Crc16(crc, block.data() + n - 1, 1);
}

// Version 3 of the packed encoding stores the payload's first 8 bytes XORed
// with a 64-bit hash of the rest of it (and the seed). Why: LevelDB's probes
// go through a per-thread cache of verified blocks (src/packed/probe_cache.h)
// that recognizes a block by its length and its first and last 8 bytes, the
// last holding the CRC-16. Two filters of nearly the same keys (a data block
// rewritten with one key replaced) often differ only in between, so only
// the CRC-16 told them apart, all but once in 65,536 (docs/FORMAT.md has the
// figures). Whitened, the first 8 bytes change with any byte of the payload,
// so the cache's key covers the whole block at no cost per probe and no byte
// of the budget. Payloads of 8 bytes or less are left as they are: the key's
// 16 bytes cover the whole block already. Its own inverse (whiten a stored
// payload to restore it).
void WhitenPacked(uint8_t* payload, size_t payload_bytes, uint64_t seed) {
  if (payload_bytes <= 8) return;
  const uint64_t rest =
      XXH3_64bits_withSeed(payload + 8, payload_bytes - 8, seed);
  Put<uint64_t>(payload, Get<uint64_t>(payload) ^ rest);
}

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

// The full checksum: low 32 bits of XXH3-64 over the footer (less the
// checksum field) and then the payload as stored.
uint32_t FullChecksum(const uint8_t* footer,
                      absl::Span<const uint8_t> payload) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, footer, kChecksumAt);
  XXH3_64bits_update(&state, footer + kChecksumAt + 4,
                     kFullFooterBytes - kChecksumAt - 4);
  XXH3_64bits_update(&state, payload.data(), payload.size());
  return static_cast<uint32_t>(XXH3_64bits_digest(&state));
}

absl::Status Corrupt(const std::string& what) {
  return absl::DataLossError(absl::StrCat("blockbloom filter: ", what));
}

// A parsed, validated trailer or footer and where the payload is.
struct Parsed {
  FilterInfo info;
  absl::Span<const uint8_t> payload;
  internal::SetParams set;  // a packed set's geometry (layout kSet)
  // A v3 packed payload with its first 8 bytes restored (payload points
  // here then; empty otherwise).
  std::vector<uint8_t> restored;
};

absl::Status CheckShape(const FilterShape& shape) {
  if (shape.num_probes < 1 || shape.num_probes > FilterShape::kMaxProbes) {
    return Corrupt(
        absl::StrCat("k = ", shape.num_probes, " is out of range [1, 16]"));
  }
  if (shape.lane_bits < 1 || shape.lane_bits > FilterShape::kMaxLaneBits) {
    return Corrupt(absl::StrCat("lane_bits = ", shape.lane_bits,
                                " is out of range [1, 512]"));
  }
  if (shape.num_blocks < 1 || shape.num_blocks > FilterShape::kMaxBlocks) {
    return Corrupt(absl::StrCat("num_blocks = ", shape.num_blocks,
                                " is out of range [1, 2^32]"));
  }
  return absl::OkStatus();
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

absl::StatusOr<Parsed> ParseFull(absl::Span<const uint8_t> block,
                                 const ReadOptions& options) {
  const size_t n = block.size();
  if (n < kFullFooterBytes) {
    return Corrupt(absl::StrCat("truncated: ", n,
                                " bytes, a full filter has a ",
                                kFullFooterBytes, "-byte footer"));
  }
  const uint8_t* footer = block.data() + n - kFullFooterBytes;
  if (std::memcmp(footer + kMagicAt, kMagic, sizeof(kMagic)) != 0) {
    return Corrupt("bad magic: the footer does not end in \"bbf\" + tag");
  }
  Parsed p;
  FilterInfo& info = p.info;
  info.encoding = Encoding::kFull;
  info.major_version = kMajorVersion;
  info.minor_version = footer[kMinorAt];
  info.shape.num_blocks = Get<uint64_t>(footer + kNumBlocksAt);
  info.shape.num_probes = footer[kNumProbesAt];
  info.shape.lane_bits = Get<uint16_t>(footer + kLaneBitsAt);
  info.seed = Get<uint64_t>(footer + kSeedAt);
  info.num_keys_known = true;
  info.num_keys = Get<uint64_t>(footer + kNumKeysAt);
  info.bits_bytes = Get<uint64_t>(footer + kBitsBytesAt);
  info.payload_bytes = Get<uint64_t>(footer + kPayloadBytesAt);
  info.overhead_bytes = kFullFooterBytes;
  info.total_bytes = n;
  // The payload size locates the payload; then the checksum, before any other
  // field is believed: a damaged footer is reported as damage, not as
  // whatever its damaged fields happen to say.
  if (info.payload_bytes != n - kFullFooterBytes) {
    return Corrupt(absl::StrCat(
        "truncated or extended: the footer says ", info.payload_bytes,
        " bytes of payload, the block holds ", n - kFullFooterBytes));
  }
  p.payload = block.subspan(0, n - kFullFooterBytes);
  if (options.verify_checksum) {
    const uint32_t stored = Get<uint32_t>(footer + kChecksumAt);
    const uint32_t computed = FullChecksum(footer, p.payload);
    if (stored != computed) {
      return Corrupt(absl::StrFormat(
          "checksum mismatch (full encoding): stored 0x%08x, computed 0x%08x",
          stored, computed));
    }
  }
  if (footer[kHashAt] != kHashXxh3) {
    return absl::UnimplementedError(
        absl::StrCat("blockbloom filter: unknown hash algorithm id ",
                     footer[kHashAt], " (this reader knows 1 = XXH3-64)"));
  }
  switch (footer[kCodecAt]) {
    case kCodecNone:
      info.compression = Compression::kNone;
      break;
    case kCodecZstd:
      info.compression = Compression::kZstd;
      break;
    default:
      return absl::UnimplementedError(absl::StrCat(
          "blockbloom filter: unknown compression codec id ", footer[kCodecAt],
          " (this reader knows 0 = none, 1 = zstd)"));
  }
  if (absl::Status s = CheckShape(info.shape); !s.ok()) return s;
  if (info.bits_bytes != info.shape.size_bytes()) {
    return Corrupt(absl::StrCat("inconsistent sizes: ", info.shape.num_blocks,
                                " blocks of ", info.shape.lane_bits,
                                "-bit lanes are ", info.shape.size_bytes(),
                                " bytes, the footer says ", info.bits_bytes));
  }
  if (info.compression == Compression::kNone &&
      info.payload_bytes != info.bits_bytes) {
    return Corrupt(absl::StrCat("inconsistent sizes: uncompressed payload of ",
                                info.payload_bytes, " bytes for ",
                                info.bits_bytes, " bytes of bits"));
  }
  if (info.compression == Compression::kZstd) {
    if (info.bits_bytes > options.max_decompressed_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "blockbloom filter: decompressing would need ", info.bits_bytes,
          " bytes, over ReadOptions::max_decompressed_bytes = ",
          options.max_decompressed_bytes));
    }
    // bits > ratio * payload, without overflow (bits_bytes >= 1 here).
    const uint64_t ratio = options.max_decompression_ratio;
    if (ratio != 0 && info.bits_bytes > ReadOptions::kRatioFreeBytes &&
        (info.bits_bytes - 1) / ratio >= info.payload_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "blockbloom filter: ", info.payload_bytes,
          " bytes of zstd data claim ", info.bits_bytes,
          " bytes of bits, over ReadOptions::max_decompression_ratio = ", ratio,
          " times as many (refused as a possible decompression "
          "bomb)"));
    }
    if (info.payload_bytes > ZSTD_compressBound(info.bits_bytes)) {
      return Corrupt(absl::StrCat("inconsistent sizes: ", info.payload_bytes,
                                  " compressed bytes for ", info.bits_bytes,
                                  " bytes of bits is more than zstd produces"));
    }
  }
  return p;
}

absl::StatusOr<Parsed> ParsePacked(absl::Span<const uint8_t> block,
                                   const ReadOptions& options) {
  const size_t n = block.size();
  const uint8_t tag = block[n - 1];
  const uint64_t payload_bytes =
      n < internal::kPackedTrailerBytes ? 0 : n - internal::kPackedTrailerBytes;
  if (payload_bytes < internal::kPackedMinPayloadBytes) {
    return Corrupt(absl::StrCat(
        "truncated: ", n, " bytes, a packed filter has at least ",
        internal::kPackedMinPayloadBytes + internal::kPackedTrailerBytes));
  }
  if (payload_bytes > internal::kPackedMaxPayloadBytes) {
    return Corrupt(absl::StrCat("inconsistent sizes: ", payload_bytes,
                                " bytes of bits, a packed filter has at most ",
                                internal::kPackedMaxPayloadBytes));
  }
  if (options.verify_checksum) {
    const uint16_t stored = Get<uint16_t>(block.data() + n - 3);
    const uint16_t crc = PackedChecksum(block, options.seed);
    if (crc != stored) {
      return Corrupt(absl::StrFormat(
          "checksum mismatch (packed encoding): stored 0x%04x, computed "
          "0x%04x with seed %d (damaged, or written with another seed)",
          stored, crc, options.seed));
    }
  }
  const bool v3 = tag < kFullTag;
  Parsed p;
  FilterInfo& info = p.info;
  info.encoding = Encoding::kPacked;
  info.major_version = v3 ? kPackedVersion : kPackedVersion2;
  info.minor_version = 0;
  info.seed = options.seed;
  info.compression = Compression::kNone;
  info.bits_bytes = info.payload_bytes = payload_bytes;
  info.overhead_bytes = internal::kPackedTrailerBytes;
  info.total_bytes = n;
  p.payload = block.subspan(0, payload_bytes);
  if (v3 && payload_bytes > 8) {
    p.restored.assign(p.payload.begin(), p.payload.end());
    WhitenPacked(p.restored.data(), p.restored.size(), options.seed);
    p.payload = absl::MakeConstSpan(p.restored);
  }
  if ((tag & 0xF0) == kPackedSpreadTag || (tag & 0xF0) == kPacked3SpreadTag) {
    info.layout = Layout::kSpread;
    info.shape = {1, (tag & 0x0F) + 1, 0};
    return p;
  }
  info.layout = Layout::kSet;
  info.shape = {1, 0, 0};
  info.set_low_bits = tag & 0x0F;
  internal::SetParams& params = p.set;
  if (!internal::ParseSet(p.payload.data(), 8 * payload_bytes,
                          info.set_low_bits, &params)) {
    return Corrupt(absl::StrCat("inconsistent sizes: the packed set's ",
                                payload_bytes, " bytes are not a set of ",
                                info.set_low_bits, "-bit lows"));
  }
  info.num_keys_known = true;
  info.num_keys = params.count;
  return p;
}

// The in-place encoding has nothing to verify: its tag gives k, its size
// the bits, and the engine's block checksum protects both.
absl::StatusOr<Parsed> ParseInPlace(absl::Span<const uint8_t> block,
                                    const ReadOptions& options) {
  const size_t n = block.size();
  if (!internal::InPlaceSizeValid(n)) {
    return Corrupt(absl::StrCat(
        "inconsistent sizes: ", n, " bytes, an in-place filter has ",
        internal::kInPlaceMinPayloadBytes + internal::kInPlaceTrailerBytes,
        " to ",
        internal::kInPlaceMaxPayloadBytes + internal::kInPlaceTrailerBytes));
  }
  Parsed p;
  FilterInfo& info = p.info;
  info.encoding = Encoding::kInPlace;
  info.major_version = 1;
  info.minor_version = 0;
  info.layout = Layout::kStandard;
  info.shape = {1, (block[n - 1] & 0x0F) + 1, 0};
  info.seed = options.seed;
  info.compression = Compression::kNone;
  info.bits_bytes = info.payload_bytes = n - internal::kInPlaceTrailerBytes;
  info.overhead_bytes = internal::kInPlaceTrailerBytes;
  info.total_bytes = n;
  p.payload = block.subspan(0, info.payload_bytes);
  return p;
}

absl::StatusOr<Parsed> Parse(absl::Span<const uint8_t> block,
                             const ReadOptions& options) {
  if (block.empty()) return Corrupt("empty input");
  const uint8_t tag = block.back();
  if (internal::IsInPlaceTag(tag)) {
    if (!options.allow_in_place) {
      return Corrupt(absl::StrFormat(
          "not a blockbloom filter block this reader accepts (last byte "
          "0x%02x is the tag of an in-place block, which has no checksum: a "
          "storage engine's per-data-block filter, read only where the "
          "engine verifies the bytes, with ReadOptions::allow_in_place)",
          tag));
    }
    return ParseInPlace(block, options);
  }
  if (tag == kReservedTag || tag == kPacked3ReservedTag) {
    return absl::UnimplementedError(absl::StrFormat(
        "blockbloom filter: tag 0x%02x is an encoding of a later version; "
        "this reader knows versions 1 to %d",
        tag, kPackedVersion));
  }
  if (tag >= kPackedSpreadTag ||
      (tag >= kPacked3SetTag && tag < kPacked3SpreadTag + 16)) {
    return ParsePacked(block, options);
  }
  if ((tag & 0xF0) == kCompactTag || (tag & 0xF0) == kCompactSeededTag) {
    return ParseCompact(block, options);
  }
  if ((tag & 0xF0) != kFullTag) {
    return Corrupt(absl::StrFormat(
        "not a blockbloom filter block (last byte 0x%02x, expected 0x00-0x0F "
        "or 0x90-0xFE)",
        tag));
  }
  const int major = (tag & 0x0F) + 1;
  if (major != kMajorVersion) {
    return absl::UnimplementedError(
        absl::StrCat("blockbloom filter: written in format major version ",
                     major, ", this reader knows version ", kMajorVersion));
  }
  return ParseFull(block, options);
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

void AppendPacked(const Filter& filter, std::string* dst) {
  const absl::Span<const uint8_t> bits = filter.bits();
  const size_t start = dst->size();
  dst->append(reinterpret_cast<const char*>(bits.data()), bits.size());
  const uint8_t tag =
      filter.layout() == Layout::kSet
          ? static_cast<uint8_t>(kPacked3SetTag + filter.set_low_bits())
          : static_cast<uint8_t>(kPacked3SpreadTag + filter.num_probes() - 1);
  const char trailer[3] = {0, 0, static_cast<char>(tag)};
  dst->append(trailer, sizeof(trailer));
  uint8_t* block = reinterpret_cast<uint8_t*>(dst->data()) + start;
  const size_t n = dst->size() - start;
  WhitenPacked(block, bits.size(), filter.seed());
  Put<uint16_t>(block + n - 3, PackedChecksum({block, n}, filter.seed()));
}

void AppendInPlace(const Filter& filter, std::string* dst) {
  const absl::Span<const uint8_t> bits = filter.bits();
  dst->append(reinterpret_cast<const char*>(bits.data()), bits.size());
  dst->push_back(
      static_cast<char>(internal::kInPlaceTag + filter.num_probes() - 1));
}

absl::Status AppendFull(const Filter& filter, const WriteOptions& options,
                        std::string* dst, uint64_t* payload_bytes) {
  const absl::Span<const uint8_t> bits = filter.bits();
  const size_t start = dst->size();
  uint8_t codec = kCodecNone;
  if (options.compression == Compression::kZstd) {
    codec = kCodecZstd;
    const size_t bound = ZSTD_compressBound(bits.size());
    dst->resize(start + bound);
    const size_t written =
        ZSTD_compress(dst->data() + start, bound, bits.data(), bits.size(),
                      options.zstd_level);
    if (ZSTD_isError(written)) {
      dst->resize(start);
      return absl::InternalError(absl::StrCat("zstd compression failed: ",
                                              ZSTD_getErrorName(written)));
    }
    dst->resize(start + written);
  } else {
    dst->append(reinterpret_cast<const char*>(bits.data()), bits.size());
  }
  *payload_bytes = dst->size() - start;

  uint8_t footer[kFullFooterBytes] = {};
  Put<uint64_t>(footer + kNumBlocksAt, filter.num_blocks());
  Put<uint64_t>(footer + kNumKeysAt, filter.num_keys());
  Put<uint64_t>(footer + kSeedAt, filter.seed());
  Put<uint64_t>(footer + kBitsBytesAt, bits.size());
  Put<uint64_t>(footer + kPayloadBytesAt, *payload_bytes);
  footer[kNumProbesAt] = static_cast<uint8_t>(filter.num_probes());
  Put<uint16_t>(footer + kLaneBitsAt,
                static_cast<uint16_t>(filter.lane_bits()));
  footer[kHashAt] = kHashXxh3;
  footer[kCodecAt] = codec;
  footer[kMinorAt] = kMinorVersion;
  std::memcpy(footer + kMagicAt, kMagic, sizeof(kMagic));
  footer[kFullFooterBytes - 1] = kFullTag + kMajorVersion - 1;
  const uint8_t* payload =
      reinterpret_cast<const uint8_t*>(dst->data()) + start;
  Put<uint32_t>(footer + kChecksumAt,
                FullChecksum(footer, {payload, *payload_bytes}));
  dst->append(reinterpret_cast<const char*>(footer), kFullFooterBytes);
  return absl::OkStatus();
}

}  // namespace

absl::Status AppendFilter(const Filter& filter, const WriteOptions& options,
                          std::string* dst, WriteStats* stats) {
  if (filter.is_match_all()) {
    return absl::InvalidArgumentError(
        "a MatchAll() filter has no bits to serialize");
  }
  Encoding encoding = options.encoding;
  const bool packed = filter.layout() != Layout::kBlocked;
  if (packed || encoding == Encoding::kPacked ||
      encoding == Encoding::kInPlace) {
    const bool in_place = filter.layout() == Layout::kStandard;
    const Encoding own = in_place ? Encoding::kInPlace : Encoding::kPacked;
    if (packed && encoding != Encoding::kAuto && encoding != own) {
      return absl::InvalidArgumentError(
          in_place ? "an in-place filter (Layout::kStandard) is written in "
                     "the in-place encoding only (kAuto or kInPlace)"
                   : "a packed filter built with fewer_false_positives is "
                     "written in the packed encoding only (kAuto or kPacked)");
    }
    if (options.compression != Compression::kNone) {
      return absl::InvalidArgumentError(
          "the packed encoding is never compressed; use Encoding::kFull");
    }
    if (!packed) {
      return absl::InvalidArgumentError(
          "the packed and in-place encodings hold packed filters "
          "(FilterOptions::packed) only; use Encoding::kCompact or kFull");
    }
    if (filter.bits().size() < internal::kPackedMinPayloadBytes ||
        filter.bits().size() > internal::kPackedMaxPayloadBytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the packed encoding holds ", internal::kPackedMinPayloadBytes,
          " to ", internal::kPackedMaxPayloadBytes, " bytes of bits, not ",
          filter.bits().size()));
    }
    const size_t start = dst->size();
    if (in_place) {
      AppendInPlace(filter, dst);
    } else {
      AppendPacked(filter, dst);
    }
    if (stats != nullptr) {
      stats->encoding = own;
      stats->bits_bytes = stats->payload_bytes = filter.bits().size();
      stats->total_bytes = dst->size() - start;
      stats->overhead_bytes = stats->total_bytes - stats->payload_bytes;
    }
    return absl::OkStatus();
  }
  FilterShape canonical;
  const bool compactable = CanonicalShape(filter.bits().size(), &canonical) &&
                           canonical.num_blocks == filter.num_blocks() &&
                           canonical.lane_bits == filter.lane_bits();
  if (encoding == Encoding::kAuto) {
    encoding = options.compression == Compression::kNone && compactable &&
                       filter.bits().size() < kAutoCompactMaxBytes
                   ? Encoding::kCompact
                   : Encoding::kFull;
  }
  if (encoding == Encoding::kCompact &&
      options.compression != Compression::kNone) {
    return absl::InvalidArgumentError(
        "the compact encoding is never compressed; use Encoding::kFull");
  }
  if (encoding == Encoding::kCompact && !compactable) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the compact encoding holds only the shapes the sizing functions "
        "give (",
        filter.num_blocks(), " blocks of ", filter.lane_bits(),
        "-bit lanes is not one); use Encoding::kFull"));
  }
  const size_t start = dst->size();
  uint64_t payload_bytes = filter.bits().size();
  if (encoding == Encoding::kCompact) {
    AppendCompact(filter, dst);
  } else if (absl::Status s = AppendFull(filter, options, dst, &payload_bytes);
             !s.ok()) {
    return s;
  }
  if (stats != nullptr) {
    stats->encoding = encoding;
    stats->bits_bytes = filter.bits().size();
    stats->payload_bytes = payload_bytes;
    stats->total_bytes = dst->size() - start;
    stats->overhead_bytes = stats->total_bytes - payload_bytes;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> SerializeFilter(const Filter& filter,
                                            const WriteOptions& options) {
  std::string out;
  if (absl::Status s = AppendFilter(filter, options, &out); !s.ok()) return s;
  return out;
}

absl::StatusOr<FilterInfo> InspectFilter(absl::Span<const uint8_t> bytes,
                                         const ReadOptions& options) {
  absl::StatusOr<Parsed> parsed = Parse(bytes, options);
  if (!parsed.ok()) return parsed.status();
  return parsed->info;
}

absl::StatusOr<Filter> OpenFilter(absl::Span<const uint8_t> bytes,
                                  const ReadOptions& options) {
  absl::StatusOr<Parsed> parsed = Parse(bytes, options);
  if (!parsed.ok()) return parsed.status();
  const FilterInfo& info = parsed->info;
  if (info.encoding == Encoding::kInPlace) {
    return internal::OpenInPlaceFilter(parsed->payload, info.shape.num_probes,
                                       info.seed);
  }
  if (info.encoding == Encoding::kPacked) {
    // A restored v3 payload dies with `parsed`: the filter keeps a copy.
    return internal::OpenPackedFilter(
        parsed->payload, info.layout,
        info.layout == Layout::kSet ? info.set_low_bits : info.shape.num_probes,
        info.seed, info.layout == Layout::kSet ? &parsed->set : nullptr,
        /*copy_payload=*/!parsed->restored.empty());
  }
  if (info.compression == Compression::kNone) {
    return Filter::Wrap(parsed->payload, info.shape, info.seed, info.num_keys);
  }
  // zstd: the frame must declare exactly the size the footer promises (a
  // frame that claims more is refused before any allocation), fill it
  // exactly, and be the whole payload.
  const absl::Span<const uint8_t> payload = parsed->payload;
  const unsigned long long declared =
      ZSTD_getFrameContentSize(payload.data(), payload.size());
  if (declared == ZSTD_CONTENTSIZE_ERROR ||
      declared == ZSTD_CONTENTSIZE_UNKNOWN) {
    return Corrupt("the zstd frame header is damaged or has no content size");
  }
  if (declared != info.bits_bytes) {
    return Corrupt(absl::StrCat("inconsistent sizes: the zstd frame holds ",
                                declared, " bytes, the footer says ",
                                info.bits_bytes));
  }
  if (ZSTD_findFrameCompressedSize(payload.data(), payload.size()) !=
      payload.size()) {
    return Corrupt("the zstd frame does not span the whole payload");
  }
  absl::StatusOr<std::unique_ptr<internal::AlignedBuffer>> buffer =
      internal::AlignedBuffer::Create(info.bits_bytes);
  if (!buffer.ok()) return buffer.status();
  const size_t got = ZSTD_decompress((*buffer)->data(), info.bits_bytes,
                                     payload.data(), payload.size());
  if (ZSTD_isError(got) || got != info.bits_bytes) {
    return Corrupt(absl::StrCat(
        "zstd decompression failed: ",
        ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short output"));
  }
  uint8_t* data = (*buffer)->data();
  return Filter(
      *std::move(buffer), data, info.shape, info.seed, info.num_keys,
      internal::KernelsFor(static_cast<uint32_t>(info.shape.lane_bits)));
}

Filter OpenFilterOrMatchAll(absl::Span<const uint8_t> bytes,
                            const ReadOptions& options, absl::Status* error) {
  absl::StatusOr<Filter> filter = OpenFilter(bytes, options);
  if (error != nullptr) *error = filter.status();
  if (!filter.ok()) return Filter::MatchAll();
  return *std::move(filter);
}

}  // namespace blockbloom
