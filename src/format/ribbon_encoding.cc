// The ribbon encoding (format version 5, tag 0x9F): a ribbon filter's
// payload (its layers back to back, src/ribbon/layout.h) | a layer table of
// 8 bytes per layer | a 44-byte footer with the parameters, the key count,
// the seed and an XXH3 checksum of everything else. docs/FORMAT.md, "Ribbon
// encoding", is the spec.
//
// Why its own encoding and not the full one: a ribbon's geometry is a list
// of layers (blocks and upper start each), r, the salt and the bump
// thresholds, none of which the full footer's blocked shape can say; and a
// full tag of another major version would tell readers of versions 1-4 that
// the blocked layout changed. Tag 0x9F was reserved by version 3 for "an
// encoding of a later version": readers of versions 3 and 4 refuse it as
// Unimplemented, those of 1 and 2 as "not a blockbloom filter" (DataLoss),
// and an engine adapter fails open either way.
#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/core/filter_access.h"
#include "src/core/key_hash.h"  // XXH3 with its state type (XXH_INLINE_ALL)
#include "src/format/encoding.h"
#include "src/ribbon/view.h"

namespace blockbloom::internal::format {
namespace {

// Footer offsets.
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
// 38-39 reserved (written 0, ignored)
constexpr size_t kMagicAt = 40;
constexpr uint8_t kMagic[3] = {'b', 'b', 'r'};
constexpr size_t kLayerEntryBytes = 8;  // num_blocks u32, upper_start u32

constexpr uint8_t kHashXxh3 = 1;
constexpr uint8_t kMinorVersion = 0;

// Low 32 bits of XXH3-64 (seed 0) over the payload, the layer table and
// the footer less its checksum field: every byte of the block but those 4.
uint32_t RibbonChecksum(absl::Span<const uint8_t> block) {
  const size_t footer_at = block.size() - kRibbonFooterBytes;
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, block.data(), footer_at + kChecksumAt);
  XXH3_64bits_update(&state, block.data() + footer_at + kChecksumAt + 4,
                     kRibbonFooterBytes - kChecksumAt - 4);
  return static_cast<uint32_t>(XXH3_64bits_digest(&state));
}

}  // namespace

absl::StatusOr<Parsed> ParseRibbon(absl::Span<const uint8_t> block,
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
  Parsed p;
  FilterInfo& info = p.info;
  info.encoding = Encoding::kRibbon;
  info.major_version = kRibbonVersion;  // the format version, as accurate's
  info.minor_version = footer[kMinorAt];
  info.kind = FilterKind::kRibbon;
  info.shape = {1, 0, 0};  // no blocked shape (Filter::shape())
  info.seed = Get<uint64_t>(footer + kSeedAt);
  info.num_keys_known = true;
  info.num_keys = Get<uint64_t>(footer + kNumKeysAt);
  info.compression = Compression::kNone;
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
    const uint32_t stored = Get<uint32_t>(footer + kChecksumAt);
    const uint32_t computed = RibbonChecksum(block);
    if (stored != computed) {
      return Corrupt(absl::StrFormat(
          "checksum mismatch (ribbon encoding): stored 0x%08x, computed "
          "0x%08x",
          stored, computed));
    }
  }
  if (footer[kHashAt] != kHashXxh3) {
    return absl::UnimplementedError(
        absl::StrCat("blockbloom filter: unknown hash algorithm id ",
                     footer[kHashAt], " (this reader knows 1 = XXH3-64)"));
  }
  ribbon::RibbonLayout& layout = p.ribbon;
  layout.result_bits = footer[kResultBitsAt];
  layout.salt = Get<uint32_t>(footer + kSaltAt);
  layout.bump_lo = footer[kBumpLoAt];
  layout.bump_hi = footer[kBumpHiAt];
  layout.num_layers = num_layers;
  if (num_layers > ribbon::kMaxLayers) {
    return Corrupt(
        absl::StrCat(num_layers, " layers, more than ", ribbon::kMaxLayers));
  }
  const uint8_t* table = block.data() + info.payload_bytes;
  for (int layer = 0; layer < num_layers; ++layer) {
    layout.num_blocks[layer] = Get<uint32_t>(table + kLayerEntryBytes * layer);
    layout.upper_start[layer] =
        Get<uint32_t>(table + kLayerEntryBytes * layer + 4);
  }
  if (absl::Status s = ribbon::CheckLayout(layout, info.payload_bytes);
      !s.ok()) {
    return s;
  }
  p.payload = block.subspan(0, info.payload_bytes);
  return p;
}

void AppendRibbon(const Filter& filter, std::string* dst) {
  const ribbon::RibbonLayout layout =
      ribbon::LayoutOf(*FilterAccess::Ref(filter).ribbon);
  const absl::Span<const uint8_t> payload = filter.bits();
  const size_t start = dst->size();
  const size_t table_bytes = kLayerEntryBytes * layout.num_layers;
  dst->resize(start + payload.size() + table_bytes + kRibbonFooterBytes);
  uint8_t* const out = reinterpret_cast<uint8_t*>(dst->data()) + start;
  if (!payload.empty()) std::memcpy(out, payload.data(), payload.size());
  uint8_t* const table = out + payload.size();
  for (int layer = 0; layer < layout.num_layers; ++layer) {
    Put<uint32_t>(table + kLayerEntryBytes * layer, layout.num_blocks[layer]);
    Put<uint32_t>(table + kLayerEntryBytes * layer + 4,
                  layout.upper_start[layer]);
  }
  uint8_t* const footer = table + table_bytes;
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
  footer[kMinorAt] = kMinorVersion;
  std::memcpy(footer + kMagicAt, kMagic, sizeof(kMagic));
  footer[kRibbonFooterBytes - 1] = kRibbonTag;
  Put<uint32_t>(
      footer + kChecksumAt,
      RibbonChecksum({out, payload.size() + table_bytes + kRibbonFooterBytes}));
}

}  // namespace blockbloom::internal::format
