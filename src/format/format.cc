// The filter file format's entry points (blockbloom/format.h): a block's
// tag (src/format/encoding.h) picks its kind (registry.h), whose plug-in
// reads it; a filter's kind picks the plug-in that writes it.
#include "blockbloom/format.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/format/encoding.h"
#include "src/format/registry.h"

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

using internal::KindPlugin;

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

// The kind whose encodings hold `block`, by its last byte, or why none.
absl::StatusOr<const KindPlugin*> KindOfBlock(absl::Span<const uint8_t> block) {
  if (block.empty()) return internal::Corrupt("empty input");
  const uint8_t tag = block.back();
  if (const KindPlugin* plugin = internal::KindOfTag(tag)) return plugin;
  if (tag == internal::format::kReservedTag) {
    return absl::UnimplementedError(absl::StrFormat(
        "blockbloom filter: tag 0x%02x is an encoding of a later version; "
        "this reader knows versions 1 to %d",
        tag, internal::format::kNewestVersion));
  }
  return internal::Corrupt(absl::StrFormat(
      "not a blockbloom filter block (last byte 0x%02x, expected 0x00-0x0F, "
      "0x50-0x6F, 0x7F or 0x90-0xFE%s)",
      tag,
      tag >= internal::kFirstRegisteredTag &&
              tag <= internal::kLastRegisteredTag
          ? ", or the tag of a kind registered at run time, which this "
            "process has not registered"
          : ""));
}

// The kinds that write `encoding` ("spread or set"), and whether any of
// them records an origin, for a message.
std::string WritersOf(Encoding encoding, bool* records_origin) {
  std::string names;
  *records_origin = false;
  for (int k = 0; k < 256; ++k) {
    const KindPlugin* plugin = internal::FindKind(static_cast<FilterKind>(k));
    if (plugin == nullptr || !plugin->writes(encoding)) continue;
    absl::StrAppend(&names, names.empty() ? "" : " or ", plugin->name);
    *records_origin = *records_origin || plugin->records_origin;
  }
  return names.empty() ? "no" : names;
}

}  // namespace

absl::Status AppendFilter(const Filter& filter, const WriteOptions& options,
                          std::string* dst, WriteStats* stats) {
  if (filter.is_match_all()) {
    return absl::InvalidArgumentError(
        "a MatchAll() filter has no bits to serialize");
  }
  const KindPlugin* plugin = internal::FindKind(filter.kind());
  if (plugin == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("a filter of kind ", static_cast<int>(filter.kind()),
                     ", which this process has not registered"));
  }
  const Encoding encoding = options.encoding;
  if (absl::Status s = CheckOrigin(options.origin); !s.ok()) return s;
  // An origin the encoding asked for cannot hold, else an encoding of
  // another kind, else an origin the kind's own encodings cannot hold.
  constexpr char kNoOrigin[] =
      "only the full, compact and ribbon encodings record a filter's "
      "origin (the accurate and in-place encodings of exact-size filters do "
      "not): use Encoding::kAuto, kFull or kCompact, or leave "
      "WriteOptions::origin unset";
  if (encoding != Encoding::kAuto && !plugin->writes(encoding)) {
    bool records_origin = false;
    const std::string writers = WritersOf(encoding, &records_origin);
    if (options.origin.recorded() && !records_origin) {
      return absl::InvalidArgumentError(kNoOrigin);
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "this encoding holds ", writers, " filters, not a ", plugin->name,
        " filter (FilterOptions::kind, exact_size): use Encoding::kAuto"));
  }
  if (options.origin.recorded() && !plugin->records_origin) {
    return absl::InvalidArgumentError(kNoOrigin);
  }
  return plugin->append(filter, options, dst, stats);
}

absl::StatusOr<std::string> SerializeFilter(const Filter& filter,
                                            const WriteOptions& options) {
  std::string out;
  if (absl::Status s = AppendFilter(filter, options, &out); !s.ok()) return s;
  return out;
}

absl::StatusOr<FilterInfo> InspectFilter(absl::Span<const uint8_t> bytes,
                                         const ReadOptions& options) {
  absl::StatusOr<const KindPlugin*> plugin = KindOfBlock(bytes);
  if (!plugin.ok()) return plugin.status();
  return (*plugin)->inspect(bytes, options);
}

absl::StatusOr<Filter> OpenFilter(absl::Span<const uint8_t> bytes,
                                  const ReadOptions& options,
                                  FilterInfo* info) {
  absl::StatusOr<const KindPlugin*> plugin = KindOfBlock(bytes);
  if (!plugin.ok()) return plugin.status();
  return (*plugin)->open(bytes, options, info);
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
