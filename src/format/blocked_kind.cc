// The blocked kind's plug-in: its two encodings behind one table. Which of
// them a block is, the tag says (encoding.h); which one a filter gets under
// Encoding::kAuto, AppendBlocked decides: compact for the shapes the sizing
// functions give under 1 KiB uncompressed (3 bytes of trailer), full
// otherwise (56 bytes of footer, any shape, zstd).
#include "src/format/blocked_kind.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "blockbloom/sizing.h"
#include "src/core/aligned_buffer.h"
#include "src/core/block_bytes.h"
#include "src/core/filter_access.h"
#include "src/format/encoding.h"

namespace blockbloom::internal::format {
namespace {

bool IsCompactTag(uint8_t tag) {
  const uint8_t high = tag & 0xF0;
  return high == kCompactTag || high == kCompactSeededTag ||
         high == kCompactOriginTag || high == kCompactOriginSeededTag;
}

bool OwnsTag(uint8_t tag) {
  return IsCompactTag(tag) || (tag & 0xF0) == kFullTag;
}

absl::StatusOr<Parsed> Parse(absl::Span<const uint8_t> block,
                             const ReadOptions& options) {
  if (IsCompactTag(block.back())) return ParseCompact(block, options);
  const int major = (block.back() & 0x0F) + 1;
  if (major != kMajorVersion) {
    return absl::UnimplementedError(
        absl::StrCat("blockbloom filter: written in format major version ",
                     major, ", this reader knows version ", kMajorVersion));
  }
  return ParseFull(block, options);
}

// The filter of a parsed block: where it lies, or decompressed.
absl::StatusOr<Filter> OpenParsed(const Parsed& parsed) {
  const FilterInfo& info = parsed.info;
  if (info.compression == Compression::kNone) {
    return Filter::Wrap(parsed.payload, info.shape, info.seed, info.num_keys);
  }
  absl::StatusOr<std::unique_ptr<AlignedBuffer>> buffer = Decompress(parsed);
  if (!buffer.ok()) return buffer.status();
  uint8_t* data = (*buffer)->data();
  return FilterAccess::MakeBlocked(*std::move(buffer), data, info.shape,
                                   info.seed, info.num_keys);
}

absl::Status Append(const Filter& filter, const WriteOptions& options,
                    std::string* dst, WriteStats* stats) {
  Encoding encoding = options.encoding;
  FilterShape canonical;
  const bool compactable = CanonicalShape(filter.bits().size(), &canonical) &&
                           canonical.num_blocks == filter.num_blocks() &&
                           canonical.lane_bits == filter.lane_bits();
  // The compact encoding keeps an origin's key count in 32 bits.
  const bool keys_fit =
      !options.origin.recorded() ||
      filter.num_keys() <= std::numeric_limits<uint32_t>::max();
  if (encoding == Encoding::kAuto) {
    encoding = options.compression == Compression::kNone && compactable &&
                       keys_fit && filter.bits().size() < kAutoCompactMaxBytes
                   ? Encoding::kCompact
                   : Encoding::kFull;
  }
  if (encoding == Encoding::kCompact && !keys_fit) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the compact encoding records an origin with a key count below 2^32, "
        "not ",
        filter.num_keys(), "; use Encoding::kFull"));
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
    AppendCompact(filter, options.origin, dst);
  } else if (absl::Status s = AppendFull(filter, options, dst, &payload_bytes);
             !s.ok()) {
    return s;
  }
  FillWriteStats(encoding, filter.bits().size(), payload_bytes, start, *dst,
                 stats);
  return absl::OkStatus();
}

bool Writes(Encoding encoding) {
  return encoding == Encoding::kCompact || encoding == Encoding::kFull;
}

double FpRateAt(uint64_t num_keys, double bits_per_key) {
  absl::StatusOr<FilterShape> shape =
      ShapeForBitsPerKey(num_keys, bits_per_key);
  if (!shape.ok()) return 1;
  return EstimatedFpRate(*shape, num_keys).value_or(1.0);
}

}  // namespace

const KindPlugin kBlockedKind = {
    .kind = FilterKind::kBlocked,
    .name = "blocked",
    .owns_tag = &OwnsTag,
    .open = &OpenByParsing<&Parse, &OpenParsed>,
    .inspect = &InspectByParsing<&Parse>,
    .append = &Append,
    .writes = &Writes,
    .records_origin = true,
    // FilterBuilder builds the blocked kind itself, from its hash chunks.
    .check_options = nullptr,
    .planned_bytes = nullptr,
    .build = nullptr,
    .fp_rate_at = &FpRateAt,
    .block_bytes = &BlockedBlockBytes,
};

}  // namespace blockbloom::internal::format
