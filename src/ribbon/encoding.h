// The ribbon encoding (docs/FORMAT.md, "Ribbon encoding"; encoding.cc says
// why it is its own): a ribbon filter's payload | its layer table | a
// footer, 44 bytes (tag 0x9F, format version 5) or short (tag 0x7F,
// version 6, what the writer uses where it holds the filter). The format's
// entry points (blockbloom/format.h) come here for these two tags; the
// table of every tag is in src/format/encoding.h.
#ifndef BLOCKBLOOM_SRC_RIBBON_ENCODING_H_
#define BLOCKBLOOM_SRC_RIBBON_ENCODING_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "src/ribbon/layout.h"

namespace blockbloom::internal::ribbon {

inline constexpr uint8_t kRibbonTag = 0x9F;
inline constexpr uint8_t kShortRibbonTag = 0x7F;
inline constexpr int kRibbonVersion = 5;
inline constexpr int kShortRibbonVersion = 6;
inline constexpr size_t kRibbonFooterBytes = 44;
// The short footer: 11 bytes, +2 with an origin, +8 with a seed.
inline constexpr size_t kShortRibbonFooterBytes = 11;

inline bool IsRibbonTag(uint8_t tag) {
  return tag == kRibbonTag || tag == kShortRibbonTag;
}

// A ribbon block read and validated: what InspectFilter says, the payload
// and its layers.
struct ParsedBlock {
  FilterInfo info;
  absl::Span<const uint8_t> payload;
  RibbonLayout layout;
};

// Reads a block whose last byte IsRibbonTag: sizes, then the checksum if
// options.verify_checksum, then every field. DataLoss or Unimplemented
// with what is wrong.
absl::StatusOr<ParsedBlock> ParseBlock(absl::Span<const uint8_t> block,
                                       const ReadOptions& options);

// The filter over a parsed block's payload, where it lies.
absl::StatusOr<Filter> OpenBlock(const ParsedBlock& parsed);

// Appends `filter` (FilterKind::kRibbon) in the ribbon encoding with
// options.origin: the short footer where it holds the filter (every ribbon
// the builder makes), the 44-byte one otherwise (AppendFilter checked the
// encoding: kAuto or kRibbon). InvalidArgument for compression.
absl::Status AppendBlock(const Filter& filter, const WriteOptions& options,
                         std::string* dst, WriteStats* stats);

// The 44-byte footer always (what a version 5 writer wrote), for tests.
void AppendLongRibbon(const Filter& filter, const FilterOrigin& origin,
                      std::string* dst);

// The bytes AppendBlock writes for a ribbon of `payload_bytes` bytes of
// solution in `num_layers` layers, with this seed and origin.
uint64_t RibbonBlockBytes(uint64_t payload_bytes, int num_layers, uint64_t seed,
                          const FilterOrigin& origin);

}  // namespace blockbloom::internal::ribbon

#endif  // BLOCKBLOOM_SRC_RIBBON_ENCODING_H_
