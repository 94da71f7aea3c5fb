// The exact-size kinds' encodings (docs/FORMAT.md): accurate (format
// versions 2 and 3: a one-block spread filter or a fingerprint set | crc16
// | tag; accurate_encoding.cc) and in-place (version 4: a standard Bloom
// filter | tag, no checksum; in_place_encoding.cc). The format's entry
// points (blockbloom/format.h) come here for their tags; the table of every
// tag is in src/format/encoding.h.
#ifndef BLOCKBLOOM_SRC_EXACT_SIZE_ENCODING_H_
#define BLOCKBLOOM_SRC_EXACT_SIZE_ENCODING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "src/exact_size/fingerprint_set.h"
#include "src/exact_size/in_place.h"

namespace blockbloom::internal {

inline constexpr uint8_t kAccurateSpreadTag = 0xE0;   // + k - 1 (v2)
inline constexpr uint8_t kAccurateSetTag = 0xF0;      // + l (v2)
inline constexpr uint8_t kAccurate3SetTag = 0x90;     // + l
inline constexpr uint8_t kAccurate3SpreadTag = 0xA0;  // + k - 1
inline constexpr int kAccurateVersion = 3;
inline constexpr int kAccurateVersion2 = 2;

// A tag of the accurate encoding, either version: a set's l is at most 14
// (0x9F and 0xFF are other encodings' tags), a spread filter's k at most
// 16.
inline constexpr bool IsAccurateTag(uint8_t tag) {
  const uint8_t high = tag & 0xF0;
  const bool set_tag = high == kAccurate3SetTag || high == kAccurateSetTag;
  return (set_tag && (tag & 0x0F) <= 14) || high == kAccurate3SpreadTag ||
         high == kAccurateSpreadTag;
}

// An exact-size block read and validated: what InspectFilter says, the
// payload, a set's geometry (kind kSet), and a v3 accurate payload with its
// first 8 bytes restored (payload points there then; empty otherwise).
struct ExactSizeBlock {
  FilterInfo info;
  absl::Span<const uint8_t> payload;
  SetParams set;
  std::vector<uint8_t> restored;
};

// Each encoding's reader, for a block whose tag is its own (IsInPlaceTag,
// IsAccurateTag): sizes, the checksum if options.verify_checksum (the
// accurate encoding's), then every field. DataLoss with what is wrong.
absl::StatusOr<ExactSizeBlock> ParseAccurate(absl::Span<const uint8_t> block,
                                             const ReadOptions& options);
absl::StatusOr<ExactSizeBlock> ParseInPlace(absl::Span<const uint8_t> block,
                                            const ReadOptions& options);

// The filter of a parsed block: where its payload lies, or over a copy of
// a restored payload.
absl::StatusOr<Filter> OpenExactSizeBlock(const ExactSizeBlock& parsed);

// Appends an exact-size filter (kSpread, kSet: the accurate encoding;
// kStandard: in-place; AppendFilter checked the encoding is kAuto or the
// kind's own) or refuses, InvalidArgument, what the encodings do not hold:
// compression, a payload out of range.
absl::Status AppendExactSizeBlock(const Filter& filter,
                                  const WriteOptions& options, std::string* dst,
                                  WriteStats* stats);

// Each encoding's writer: appends `filter` (AppendExactSizeBlock checked
// that the encoding holds it).
void AppendAccurate(const Filter& filter, std::string* dst);
void AppendInPlace(const Filter& filter, std::string* dst);

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_EXACT_SIZE_ENCODING_H_
