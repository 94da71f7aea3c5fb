// The filter file format's entry points (blockbloom/format.h): the tag
// (src/format/encoding.h) picks the encoding, whose own file reads or
// writes it.
#include "blockbloom/format.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/core/aligned_buffer.h"
#include "src/core/filter_access.h"
#include "src/core/probe.h"
#include "src/exact_size/encoding.h"
#include "src/exact_size/in_place.h"
#include "src/format/encoding.h"
#include "src/ribbon/encoding.h"

namespace blockbloom {
namespace internal::format {

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

}  // namespace internal::format

namespace {

using internal::Corrupt;
using internal::format::AppendCompact;
using internal::format::AppendFull;
using internal::format::CanonicalShape;
using internal::format::kAutoCompactMaxBytes;
using internal::format::kCompactOriginSeededTag;
using internal::format::kCompactOriginTag;
using internal::format::kCompactSeededTag;
using internal::format::kCompactTag;
using internal::format::kFullTag;
using internal::format::kMajorVersion;
using internal::format::kReservedTag;
using internal::format::ParseCompact;
using internal::format::Parsed;
using internal::format::ParseFull;

// InvalidArgument for a level or group out of range.
absl::Status CheckOrigin(const FilterOrigin& origin) {
  if (!origin.recorded() ||
      (origin.level <= FilterOrigin::kMaxLevel && origin.group >= 0 &&
       origin.group <= FilterOrigin::kMaxGroup)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "a filter's origin holds a level in [0, ", FilterOrigin::kMaxLevel,
      "] and a group in [0, ", FilterOrigin::kMaxGroup, "], not level ",
      origin.level, " and group ", origin.group));
}

// The ribbon kind's blocks are read by its own encoding (src/ribbon).
bool IsRibbonBlock(absl::Span<const uint8_t> block) {
  return !block.empty() && internal::ribbon::IsRibbonTag(block.back());
}

// The exact-size kinds' blocks are read by their encodings (src/exact_size),
// an in-place one only where the caller allows it.
bool IsExactSizeBlock(absl::Span<const uint8_t> block) {
  return !block.empty() && (internal::IsInPlaceTag(block.back()) ||
                            internal::IsAccurateTag(block.back()));
}

absl::StatusOr<internal::ExactSizeBlock> ParseExactSize(
    absl::Span<const uint8_t> block, const ReadOptions& options) {
  const uint8_t tag = block.back();
  if (!internal::IsInPlaceTag(tag))
    return internal::ParseAccurate(block, options);
  if (!options.allow_in_place) {
    return Corrupt(absl::StrFormat(
        "not a blockbloom filter block this reader accepts (last byte "
        "0x%02x is the tag of an in-place block, which has no checksum: a "
        "storage engine's per-data-block filter, read only where the "
        "engine verifies the bytes, with ReadOptions::allow_in_place)",
        tag));
  }
  return internal::ParseInPlace(block, options);
}

// Every other block (the blocked kind's), by its tag.
absl::StatusOr<Parsed> Parse(absl::Span<const uint8_t> block,
                             const ReadOptions& options) {
  if (block.empty()) return Corrupt("empty input");
  const uint8_t tag = block.back();
  if (tag == kReservedTag) {
    return absl::UnimplementedError(absl::StrFormat(
        "blockbloom filter: tag 0x%02x is an encoding of a later version; "
        "this reader knows versions 1 to %d",
        tag, internal::format::kNewestVersion));
  }
  if ((tag & 0xF0) == kCompactTag || (tag & 0xF0) == kCompactSeededTag ||
      (tag & 0xF0) == kCompactOriginTag ||
      (tag & 0xF0) == kCompactOriginSeededTag) {
    return ParseCompact(block, options);
  }
  if ((tag & 0xF0) != kFullTag) {
    return Corrupt(absl::StrFormat(
        "not a blockbloom filter block (last byte 0x%02x, expected 0x00-0x0F, "
        "0x50-0x6F, 0x7F or 0x90-0xFE)",
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

// The blocked filter of a parsed block: where it lies, or decompressed.
absl::StatusOr<Filter> OpenParsed(const Parsed& parsed) {
  const FilterInfo& info = parsed.info;
  if (info.compression == Compression::kNone) {
    return Filter::Wrap(parsed.payload, info.shape, info.seed, info.num_keys);
  }
  absl::StatusOr<std::unique_ptr<internal::AlignedBuffer>> buffer =
      internal::format::Decompress(parsed);
  if (!buffer.ok()) return buffer.status();
  uint8_t* data = (*buffer)->data();
  return internal::FilterAccess::MakeBlocked(
      *std::move(buffer), data, info.shape, info.seed, info.num_keys);
}

// One family's block (the blocked, exact-size or ribbon kinds'), parsed
// with `parse` and opened with `open`; `*info` set if it opens.
template <typename ParseFn, typename OpenFn>
absl::StatusOr<Filter> ParseAndOpen(ParseFn parse, OpenFn open,
                                    absl::Span<const uint8_t> bytes,
                                    const ReadOptions& options,
                                    FilterInfo* info) {
  auto parsed = parse(bytes, options);
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<Filter> filter = open(*parsed);
  if (filter.ok() && info != nullptr) *info = parsed->info;
  return filter;
}

template <typename ParseFn>
absl::StatusOr<FilterInfo> InfoOf(ParseFn parse,
                                  absl::Span<const uint8_t> bytes,
                                  const ReadOptions& options) {
  auto parsed = parse(bytes, options);
  if (!parsed.ok()) return parsed.status();
  return parsed->info;
}

}  // namespace

absl::Status AppendFilter(const Filter& filter, const WriteOptions& options,
                          std::string* dst, WriteStats* stats) {
  if (filter.is_match_all()) {
    return absl::InvalidArgumentError(
        "a MatchAll() filter has no bits to serialize");
  }
  Encoding encoding = options.encoding;
  if (filter.kind() == FilterKind::kRibbon || encoding == Encoding::kRibbon) {
    if (filter.kind() != FilterKind::kRibbon) {
      return absl::InvalidArgumentError(
          "the ribbon encoding holds ribbon filters (FilterKind::kRibbon) "
          "only");
    }
    if (absl::Status s = CheckOrigin(options.origin); !s.ok()) return s;
    return internal::ribbon::AppendBlock(filter, options, dst, stats);
  }
  if (options.origin.recorded()) {
    if (absl::Status s = CheckOrigin(options.origin); !s.ok()) return s;
    if (filter.kind() != FilterKind::kBlocked ||
        (encoding != Encoding::kAuto && encoding != Encoding::kFull &&
         encoding != Encoding::kCompact)) {
      return absl::InvalidArgumentError(
          "only the full, compact and ribbon encodings record a filter's "
          "origin (the accurate and in-place encodings of exact-size "
          "filters do not): use Encoding::kAuto, kFull or kCompact, or "
          "leave WriteOptions::origin unset");
    }
  }
  if (filter.kind() != FilterKind::kBlocked) {
    return internal::AppendExactSizeBlock(filter, options, dst, stats);
  }
  if (encoding == Encoding::kAccurate || encoding == Encoding::kInPlace) {
    if (options.compression != Compression::kNone) {
      return absl::InvalidArgumentError(
          "the accurate encoding is never compressed; use Encoding::kFull");
    }
    return absl::InvalidArgumentError(
        "the accurate and in-place encodings hold exact-size filters "
        "(FilterOptions::exact_size) only; use Encoding::kCompact or kFull");
  }
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
  if (IsRibbonBlock(bytes)) {
    return InfoOf(&internal::ribbon::ParseBlock, bytes, options);
  }
  if (IsExactSizeBlock(bytes)) return InfoOf(&ParseExactSize, bytes, options);
  return InfoOf(&Parse, bytes, options);
}

absl::StatusOr<Filter> OpenFilter(absl::Span<const uint8_t> bytes,
                                  const ReadOptions& options,
                                  FilterInfo* info) {
  if (IsRibbonBlock(bytes)) {
    return ParseAndOpen(&internal::ribbon::ParseBlock,
                        &internal::ribbon::OpenBlock, bytes, options, info);
  }
  if (IsExactSizeBlock(bytes)) {
    return ParseAndOpen(&ParseExactSize, &internal::OpenExactSizeBlock, bytes,
                        options, info);
  }
  return ParseAndOpen(&Parse, &OpenParsed, bytes, options, info);
}

absl::StatusOr<Filter> OpenFilter(absl::Span<const uint8_t> bytes,
                                  const ReadOptions& options) {
  return OpenFilter(bytes, options, nullptr);
}

Filter OpenFilterOrMatchAll(absl::Span<const uint8_t> bytes,
                            const ReadOptions& options, absl::Status* error) {
  return OpenFilterOrMatchAll(bytes, options, error, nullptr);
}

Filter OpenFilterOrMatchAll(absl::Span<const uint8_t> bytes,
                            const ReadOptions& options, absl::Status* error,
                            FilterInfo* info) {
  absl::StatusOr<Filter> filter = OpenFilter(bytes, options, info);
  if (error != nullptr) *error = filter.status();
  if (!filter.ok()) return Filter::MatchAll();
  return *std::move(filter);
}

}  // namespace blockbloom
