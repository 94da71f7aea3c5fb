// The ribbon encoding: a ribbon filter's payload (its layers back to back,
// src/ribbon/layout.h) | a layer table of 8 bytes per layer | a footer with
// the parameters, the key count, the seed, the origin and an XXH3 checksum
// of everything else. Two footers (docs/FORMAT.md, "Ribbon encoding", is
// the spec):
//
//   tag 0x9F, version 5: 44 bytes, every field at a fixed offset; the origin
//     in bytes 38-39 since minor version 1 (5.0 readers ignore them).
//   tag 0x7F, version 6: 11 bytes (+2 with an origin, +8 with a seed), what
//     the writer uses for every ribbon the builder makes.
//
// Why the short footer: a RocksDB tree of 16 KiB tables holds ~700 keys per
// table, where 52 bytes of footer and layer table are 0.6 bits/key, 6% of a
// 10 bits/key filter and a 1.5x higher rate than the same bytes of payload
// would give. The short footer drops what is implied (the hash, the bump
// thresholds, the payload size, which the layers give), narrows the salt
// (0 .. 3 as written), r and the key count, and stores the seed and origin
// only when there is one. Tag 0x7F: one flipped bit never turns it into an
// unchecked in-place tag (0x00-0x0F, see format.cc), and every reader
// before version 6 refuses it ("not a blockbloom filter", DataLoss), so an
// engine adapter fails open.
//
// Why its own encoding and not the full one: a ribbon's geometry is a list
// of layers (blocks and upper start each), r, the salt and the bump
// thresholds, none of which the full footer's blocked shape can say; and a
// full tag of another major version would tell readers of versions 1-4 that
// the blocked layout changed. Tag 0x9F was reserved by version 3 for "an
// encoding of a later version": readers of versions 3 and 4 refuse it as
// Unimplemented, those of 1 and 2 as "not a blockbloom filter" (DataLoss),
// and an engine adapter fails open either way.
#include "src/ribbon/encoding.h"

#include <cstdint>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/core/block_bytes.h"
#include "src/core/filter_access.h"
#include "src/core/key_hash.h"  // XXH3 with its state type (XXH_INLINE_ALL)
#include "src/ribbon/ribbon_filter.h"
#include "src/ribbon/view.h"

namespace blockbloom::internal::ribbon {
namespace {

// The long footer's offsets.
constexpr size_t kNumKeysAt = 0;
constexpr size_t kSeedAt = 8;
constexpr size_t kPayloadBytesAt = 16;  // u64
constexpr size_t kSaltAt = 24;          // u32
constexpr size_t kResultBitsAt = 28;    // r
constexpr size_t kNumLayersAt = 29;
constexpr size_t kBumpLoAt = 30;
constexpr size_t kBumpHiAt = 31;
constexpr size_t kChecksumAt = 32;  // u32
constexpr size_t kHashAt = 36;
constexpr size_t kMinorAt = 37;
constexpr size_t kOriginAt = 38;  // u16, minor version >= 1 (0: reserved)
constexpr size_t kMagicAt = 40;
constexpr uint8_t kMagic[3] = {'b', 'b', 'r'};
constexpr size_t kLayerEntryBytes = 8;  // num_blocks u32, upper_start u32

constexpr uint8_t kHashXxh3 = 1;
// Minor version 1 adds the origin; a block without one is written as 5.0,
// byte for byte what version 5 writers wrote.
constexpr uint8_t kMinorVersion = 0;
constexpr uint8_t kMinorVersionWithOrigin = 1;

// The short footer's fields, counted back from the block's end (the seed
// and origin, when present, sit just before num_keys: seed, then origin).
constexpr size_t kShortTagBack = 1;
constexpr size_t kShortChecksumBack = 5;  // u32
constexpr size_t kShortLayersBack = 6;    // bits 0-3 layers, 4 seed, 5 origin
constexpr size_t kShortResultBack = 7;    // bits 0-4 r, 5-6 salt
constexpr size_t kShortNumKeysBack = 11;  // u32
constexpr uint8_t kShortSeeded = 1 << 4;
constexpr uint8_t kShortWithOrigin = 1 << 5;
constexpr uint8_t kShortLayersReserved = 0xC0;
constexpr uint8_t kShortResultReserved = 0x80;
constexpr uint32_t kShortMaxSalt = 3;

// Low 32 bits of XXH3-64 (seed 0) of every byte of the block but the 4 of
// the checksum at `checksum_at`.
uint32_t RibbonChecksum(absl::Span<const uint8_t> block, size_t checksum_at) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, block.data(), checksum_at);
  XXH3_64bits_update(&state, block.data() + checksum_at + 4,
                     block.size() - checksum_at - 4);
  return static_cast<uint32_t>(XXH3_64bits_digest(&state));
}

absl::Status CheckChecksum(absl::Span<const uint8_t> block,
                           size_t checksum_at) {
  const uint32_t stored = Get<uint32_t>(block.data() + checksum_at);
  const uint32_t computed = RibbonChecksum(block, checksum_at);
  if (stored == computed) return absl::OkStatus();
  return Corrupt(absl::StrFormat(
      "checksum mismatch (ribbon encoding): stored 0x%08x, computed 0x%08x",
      stored, computed));
}

// The layer table at `table` into `layout` (num_layers <= kMaxLayers).
void ReadLayerTable(const uint8_t* table, RibbonLayout* layout) {
  for (int layer = 0; layer < layout->num_layers; ++layer) {
    layout->num_blocks[layer] = Get<uint32_t>(table + kLayerEntryBytes * layer);
    layout->upper_start[layer] =
        Get<uint32_t>(table + kLayerEntryBytes * layer + 4);
  }
}

void WriteLayerTable(const RibbonLayout& layout, uint8_t* table) {
  for (int layer = 0; layer < layout.num_layers; ++layer) {
    Put<uint32_t>(table + kLayerEntryBytes * layer, layout.num_blocks[layer]);
    Put<uint32_t>(table + kLayerEntryBytes * layer + 4,
                  layout.upper_start[layer]);
  }
}

absl::Status TooManyLayers(int num_layers) {
  return Corrupt(absl::StrCat(num_layers, " layers, more than ", kMaxLayers));
}

// The layer table (just after the payload) read into p.layout, whose
// num_layers <= kMaxLayers is set, and the layout checked against the
// payload size: what both footers end with.
absl::StatusOr<ParsedBlock> WithLayers(absl::Span<const uint8_t> block,
                                       ParsedBlock p) {
  ReadLayerTable(block.data() + p.info.payload_bytes, &p.layout);
  if (absl::Status s = CheckLayout(p.layout, p.info.payload_bytes); !s.ok()) {
    return s;
  }
  p.payload = block.subspan(0, p.info.payload_bytes);
  return p;
}

// What both footers share in FilterInfo.
ParsedBlock StartParsed(int major_version, int minor_version) {
  ParsedBlock p;
  FilterInfo& info = p.info;
  info.encoding = Encoding::kRibbon;
  info.major_version = major_version;  // the version that added the footer
  info.minor_version = minor_version;
  info.kind = FilterKind::kRibbon;
  info.shape = {1, 0, 0};  // no blocked shape (Filter::shape())
  info.num_keys_known = true;
  info.compression = Compression::kNone;
  return p;
}

absl::StatusOr<ParsedBlock> ParseRibbon(absl::Span<const uint8_t> block,
                                        const ReadOptions& options) {
  const size_t n = block.size();
  if (n < kRibbonFooterBytes) {
    return Corrupt(absl::StrCat("truncated: ", n,
                                " bytes, a ribbon filter has a ",
                                kRibbonFooterBytes, "-byte footer"));
  }
  const uint8_t* footer = block.data() + n - kRibbonFooterBytes;
  if (std::memcmp(footer + kMagicAt, kMagic, sizeof(kMagic)) != 0) {
    return Corrupt("bad magic: the footer does not end in \"bbr\" + tag");
  }
  ParsedBlock p = StartParsed(kRibbonVersion, footer[kMinorAt]);
  FilterInfo& info = p.info;
  info.seed = Get<uint64_t>(footer + kSeedAt);
  info.num_keys = Get<uint64_t>(footer + kNumKeysAt);
  info.bits_bytes = info.payload_bytes =
      Get<uint64_t>(footer + kPayloadBytesAt);
  const int num_layers = footer[kNumLayersAt];
  // The sizes locate the payload and the table; then the checksum, before
  // any other field is believed.
  const uint64_t table_bytes =
      kLayerEntryBytes * uint64_t{footer[kNumLayersAt]};
  if (info.payload_bytes > n ||
      info.payload_bytes + table_bytes + kRibbonFooterBytes != n) {
    return Corrupt(absl::StrCat("truncated or extended: the footer says ",
                                info.payload_bytes, " bytes of payload and ",
                                num_layers, " layers, the block holds ", n));
  }
  info.overhead_bytes = table_bytes + kRibbonFooterBytes;
  info.total_bytes = n;
  if (options.verify_checksum) {
    if (absl::Status s =
            CheckChecksum(block, n - kRibbonFooterBytes + kChecksumAt);
        !s.ok()) {
      return s;
    }
  }
  if (footer[kHashAt] != kHashXxh3) {
    return absl::UnimplementedError(
        absl::StrCat("blockbloom filter: unknown hash algorithm id ",
                     footer[kHashAt], " (this reader knows 1 = XXH3-64)"));
  }
  if (info.minor_version >= kMinorVersionWithOrigin) {
    info.origin = UnpackOrigin(Get<uint16_t>(footer + kOriginAt));
  }
  RibbonLayout& layout = p.layout;
  layout.result_bits = footer[kResultBitsAt];
  layout.salt = Get<uint32_t>(footer + kSaltAt);
  layout.bump_lo = footer[kBumpLoAt];
  layout.bump_hi = footer[kBumpHiAt];
  layout.num_layers = num_layers;
  if (num_layers > kMaxLayers) return TooManyLayers(num_layers);
  return WithLayers(block, std::move(p));
}

absl::StatusOr<ParsedBlock> ParseShortRibbon(absl::Span<const uint8_t> block,
                                             const ReadOptions& options) {
  const size_t n = block.size();
  if (n < kShortRibbonFooterBytes) {
    return Corrupt(absl::StrCat("truncated: ", n,
                                " bytes, a ribbon filter's short footer has ",
                                kShortRibbonFooterBytes));
  }
  // The checksum covers every other byte, wherever the fields lie: checked
  // before any of them is believed.
  if (options.verify_checksum) {
    if (absl::Status s = CheckChecksum(block, n - kShortChecksumBack);
        !s.ok()) {
      return s;
    }
  }
  const uint8_t* const end = block.data() + n;
  const uint8_t layers_byte = *(end - kShortLayersBack);
  const uint8_t result_byte = *(end - kShortResultBack);
  if ((layers_byte & kShortLayersReserved) != 0 ||
      (result_byte & kShortResultReserved) != 0) {
    return absl::UnimplementedError(absl::StrFormat(
        "blockbloom filter: ribbon short footer flags 0x%02x 0x%02x name "
        "fields of a later version; this reader knows version %d",
        layers_byte, result_byte, kNewestFormatVersion));
  }
  const bool seeded = (layers_byte & kShortSeeded) != 0;
  const bool with_origin = (layers_byte & kShortWithOrigin) != 0;
  const int num_layers = layers_byte & 0x0F;
  if (num_layers > kMaxLayers) return TooManyLayers(num_layers);
  const uint64_t overhead = kShortRibbonFooterBytes + (seeded ? 8 : 0) +
                            (with_origin ? 2 : 0) +
                            kLayerEntryBytes * uint64_t(num_layers);
  if (overhead > n) {
    return Corrupt(absl::StrCat("truncated: ", n, " bytes, the footer says ",
                                num_layers, " layers, which take ", overhead,
                                " bytes with the footer alone"));
  }
  ParsedBlock p = StartParsed(kShortRibbonVersion, 0);
  FilterInfo& info = p.info;
  info.num_keys = Get<uint32_t>(end - kShortNumKeysBack);
  const uint8_t* field = end - kShortNumKeysBack;
  if (with_origin) {
    field -= 2;
    info.origin = UnpackOrigin(Get<uint16_t>(field));
  }
  if (seeded) {
    field -= 8;
    info.seed = Get<uint64_t>(field);
  }
  info.bits_bytes = info.payload_bytes = n - overhead;
  info.overhead_bytes = overhead;
  info.total_bytes = n;
  RibbonLayout& layout = p.layout;
  layout.result_bits = result_byte & 0x1F;
  layout.salt = (result_byte >> 5) & kShortMaxSalt;
  layout.num_layers = num_layers;  // bump thresholds: the defaults
  return WithLayers(block, std::move(p));
}

}  // namespace

void AppendLongRibbon(const Filter& filter, const FilterOrigin& origin,
                      std::string* dst) {
  const RibbonLayout layout =
      LayoutOf(ViewOf<RibbonView>(FilterAccess::Ref(filter)));
  const absl::Span<const uint8_t> payload = filter.bits();
  const size_t start = dst->size();
  const size_t table_bytes = kLayerEntryBytes * layout.num_layers;
  const size_t total = payload.size() + table_bytes + kRibbonFooterBytes;
  dst->resize(start + total);
  uint8_t* const out = reinterpret_cast<uint8_t*>(dst->data()) + start;
  if (!payload.empty()) std::memcpy(out, payload.data(), payload.size());
  WriteLayerTable(layout, out + payload.size());
  uint8_t* const footer = out + payload.size() + table_bytes;
  std::memset(footer, 0, kRibbonFooterBytes);
  Put<uint64_t>(footer + kNumKeysAt, filter.num_keys());
  Put<uint64_t>(footer + kSeedAt, filter.seed());
  Put<uint64_t>(footer + kPayloadBytesAt, payload.size());
  Put<uint32_t>(footer + kSaltAt, layout.salt);
  footer[kResultBitsAt] = static_cast<uint8_t>(layout.result_bits);
  footer[kNumLayersAt] = static_cast<uint8_t>(layout.num_layers);
  footer[kBumpLoAt] = layout.bump_lo;
  footer[kBumpHiAt] = layout.bump_hi;
  footer[kHashAt] = kHashXxh3;
  const uint16_t packed = PackOrigin(origin);
  footer[kMinorAt] = packed != 0 ? kMinorVersionWithOrigin : kMinorVersion;
  Put<uint16_t>(footer + kOriginAt, packed);
  std::memcpy(footer + kMagicAt, kMagic, sizeof(kMagic));
  footer[kRibbonFooterBytes - 1] = kRibbonTag;
  Put<uint32_t>(
      footer + kChecksumAt,
      RibbonChecksum({out, total}, total - kRibbonFooterBytes + kChecksumAt));
}

uint64_t RibbonBlockBytes(uint64_t payload_bytes, int num_layers, uint64_t seed,
                          const FilterOrigin& origin) {
  return payload_bytes + kLayerEntryBytes * num_layers + (seed != 0 ? 8 : 0) +
         (PackOrigin(origin) != 0 ? 2 : 0) + kShortRibbonFooterBytes;
}

namespace {

// The short footer where it holds the filter (every ribbon the builder
// makes), the 44-byte one otherwise.
void AppendRibbon(const Filter& filter, const FilterOrigin& origin,
                  std::string* dst) {
  const RibbonLayout layout =
      LayoutOf(ViewOf<RibbonView>(FilterAccess::Ref(filter)));
  if (layout.salt > kShortMaxSalt || layout.bump_lo != kBumpLo ||
      layout.bump_hi != kBumpHi || filter.num_keys() > UINT32_MAX) {
    return AppendLongRibbon(filter, origin, dst);
  }
  const absl::Span<const uint8_t> payload = filter.bits();
  const bool seeded = filter.seed() != 0;
  const uint16_t packed = PackOrigin(origin);
  const size_t table_bytes = kLayerEntryBytes * layout.num_layers;
  const size_t total = payload.size() + table_bytes + (seeded ? 8 : 0) +
                       (packed != 0 ? 2 : 0) + kShortRibbonFooterBytes;
  const size_t start = dst->size();
  dst->resize(start + total);
  uint8_t* const out = reinterpret_cast<uint8_t*>(dst->data()) + start;
  if (!payload.empty()) std::memcpy(out, payload.data(), payload.size());
  WriteLayerTable(layout, out + payload.size());
  uint8_t* field = out + payload.size() + table_bytes;
  if (seeded) {
    Put<uint64_t>(field, filter.seed());
    field += 8;
  }
  if (packed != 0) {
    Put<uint16_t>(field, packed);
    field += 2;
  }
  uint8_t* const end = out + total;
  Put<uint32_t>(end - kShortNumKeysBack,
                static_cast<uint32_t>(filter.num_keys()));
  *(end - kShortResultBack) =
      static_cast<uint8_t>(layout.result_bits | layout.salt << 5);
  *(end - kShortLayersBack) =
      static_cast<uint8_t>(layout.num_layers | (seeded ? kShortSeeded : 0) |
                           (packed != 0 ? kShortWithOrigin : 0));
  *(end - kShortTagBack) = kShortRibbonTag;
  Put<uint32_t>(end - kShortChecksumBack,
                RibbonChecksum({out, total}, total - kShortChecksumBack));
}

}  // namespace

absl::StatusOr<ParsedBlock> ParseBlock(absl::Span<const uint8_t> block,
                                       const ReadOptions& options) {
  if (!block.empty() && block.back() == kShortRibbonTag) {
    return ParseShortRibbon(block, options);
  }
  return ParseRibbon(block, options);
}

absl::StatusOr<Filter> OpenBlock(const ParsedBlock& parsed) {
  return OpenRibbonFilter(parsed.payload, parsed.layout, parsed.info.seed,
                          parsed.info.num_keys);
}

absl::Status AppendBlock(const Filter& filter, const WriteOptions& options,
                         std::string* dst, WriteStats* stats) {
  if (options.compression != Compression::kNone) {
    // A ribbon's solution words are random bits: nothing to compress.
    return absl::InvalidArgumentError(
        "the ribbon encoding is never compressed");
  }
  const size_t start = dst->size();
  AppendRibbon(filter, options.origin, dst);
  FillWriteStats(Encoding::kRibbon, filter.bits().size(), filter.bits().size(),
                 start, *dst, stats);
  return absl::OkStatus();
}

}  // namespace blockbloom::internal::ribbon
