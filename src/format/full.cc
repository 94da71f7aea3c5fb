// The full encoding: payload (bits, or a zstd frame of them) | 56-byte
// footer with the shape, seed, key count, codec, versions and an XXH3
// checksum.
#include <zstd.h>

#include <cstdint>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/core/aligned_buffer.h"
#include "src/core/key_hash.h"
#include "src/core/probe.h"
#include "src/format/encoding.h"

namespace blockbloom::internal::format {
namespace {

// Minor version 1 adds the origin (bytes 46-47); a block without one is
// written as 1.0, byte for byte what earlier writers wrote.
constexpr int kMinorVersion = 0;
constexpr int kMinorVersionWithOrigin = 1;
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
constexpr size_t kOriginAt = 46;    // u16, minor version >= 1
constexpr size_t kChecksumAt = 48;
constexpr size_t kMagicAt = 52;
constexpr uint8_t kMagic[3] = {'b', 'b', 'f'};

constexpr uint8_t kHashXxh3 = 1;  // XXH3-64 with the stored seed
constexpr uint8_t kCodecNone = 0;
constexpr uint8_t kCodecZstd = 1;

// The full checksum: low 32 bits of XXH3-64 over the footer (less the
// checksum field) and then the payload as stored.
uint32_t FullChecksum(const uint8_t* footer,
                      absl::Span<const uint8_t> payload) {
  XXH3_state_t state;
  StartFullChecksum(footer, &state);
  XXH3_64bits_update(&state, payload.data(), payload.size());
  return static_cast<uint32_t>(XXH3_64bits_digest(&state));
}

}  // namespace

// The origin as a u16: bits 0-4 level + 1 (0: none recorded), bit 5
// bottommost, bits 6-15 group.
void WriteFullFooter(const FullFooterFields& fields,
                     uint8_t footer[kFullFooterBytes],
                     const FilterOrigin& origin) {
  std::memset(footer, 0, kFullFooterBytes);
  Put<uint64_t>(footer + kNumBlocksAt, fields.num_blocks);
  Put<uint64_t>(footer + kNumKeysAt, fields.num_keys);
  Put<uint64_t>(footer + kSeedAt, fields.seed);
  Put<uint64_t>(footer + kBitsBytesAt, fields.bits_bytes);
  Put<uint64_t>(footer + kPayloadBytesAt, fields.payload_bytes);
  footer[kNumProbesAt] = static_cast<uint8_t>(fields.num_probes);
  Put<uint16_t>(footer + kLaneBitsAt, static_cast<uint16_t>(fields.lane_bits));
  footer[kHashAt] = kHashXxh3;
  footer[kCodecAt] = fields.zstd ? kCodecZstd : kCodecNone;
  const uint16_t packed = PackOrigin(origin);
  footer[kMinorAt] = packed != 0 ? kMinorVersionWithOrigin : kMinorVersion;
  Put<uint16_t>(footer + kOriginAt, packed);
  std::memcpy(footer + kMagicAt, kMagic, sizeof(kMagic));
  footer[kFullFooterBytes - 1] = kFullTag + kMajorVersion - 1;
}

void StartFullChecksum(const uint8_t* footer, XXH3_state_t* state) {
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, footer, kChecksumAt);
  XXH3_64bits_update(state, footer + kChecksumAt + 4,
                     kFullFooterBytes - kChecksumAt - 4);
}

void SetFullChecksum(uint32_t checksum, uint8_t* footer) {
  Put<uint32_t>(footer + kChecksumAt, checksum);
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
  // Bytes 46-47 were reserved (written 0) in 1.0.
  if (info.minor_version >= kMinorVersionWithOrigin) {
    info.origin = UnpackOrigin(Get<uint16_t>(footer + kOriginAt));
  }
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

  uint8_t footer[kFullFooterBytes];
  WriteFullFooter({.num_blocks = filter.num_blocks(),
                   .num_keys = filter.num_keys(),
                   .seed = filter.seed(),
                   .bits_bytes = bits.size(),
                   .payload_bytes = *payload_bytes,
                   .num_probes = filter.num_probes(),
                   .lane_bits = filter.lane_bits(),
                   .zstd = codec == kCodecZstd},
                  footer, options.origin);
  const uint8_t* payload =
      reinterpret_cast<const uint8_t*>(dst->data()) + start;
  SetFullChecksum(FullChecksum(footer, {payload, *payload_bytes}), footer);
  dst->append(reinterpret_cast<const char*>(footer), kFullFooterBytes);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<AlignedBuffer>> Decompress(
    const Parsed& parsed) {
  const FilterInfo& info = parsed.info;
  // zstd: the frame must declare exactly the size the footer promises (a
  // frame that claims more is refused before any allocation), fill it
  // exactly, and be the whole payload.
  const absl::Span<const uint8_t> payload = parsed.payload;
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
  absl::StatusOr<std::unique_ptr<AlignedBuffer>> buffer =
      AlignedBuffer::Create(info.bits_bytes);
  if (!buffer.ok()) return buffer.status();
  const size_t got = ZSTD_decompress((*buffer)->data(), info.bits_bytes,
                                     payload.data(), payload.size());
  if (ZSTD_isError(got) || got != info.bits_bytes) {
    return Corrupt(absl::StrCat(
        "zstd decompression failed: ",
        ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short output"));
  }
  return buffer;
}

}  // namespace blockbloom::internal::format
