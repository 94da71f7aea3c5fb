// The exact-size kinds behind one set of encodings: a block's tag says
// which encoding (and so which kind) it holds, whichever of the three
// plug-ins the format asked.
#include "src/exact_size/kind.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_format.h"
#include "src/core/block_bytes.h"
#include "src/exact_size/encoding.h"
#include "src/exact_size/in_place.h"

namespace blockbloom::internal {
namespace {

bool OwnsTag(uint8_t tag) { return IsInPlaceTag(tag) || IsAccurateTag(tag); }

// An in-place block only where the caller allows it: it has no checksum.
absl::StatusOr<ExactSizeBlock> Parse(absl::Span<const uint8_t> block,
                                     const ReadOptions& options) {
  const uint8_t tag = block.back();
  if (!IsInPlaceTag(tag)) return ParseAccurate(block, options);
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

bool WritesAccurate(Encoding encoding) {
  return encoding == Encoding::kAccurate;
}
bool WritesInPlace(Encoding encoding) { return encoding == Encoding::kInPlace; }

// A standard Bloom filter of these bits at its k, (1 - e^(-k/b))^k: the
// rate the policies plan an exact-size block at (the set kind's is lower).
double FpRateAt(uint64_t, double bits_per_key) {
  const double k = std::max(1.0, std::round(bits_per_key * std::log(2.0)));
  return std::pow(1 - std::exp(-k / bits_per_key), k);
}

// The block is the whole filter: its size is its bits' (the trailer is
// in them, FilterOptions::exact_size).
uint64_t BlockBytes(uint64_t payload_bytes, uint64_t, const FilterOrigin&) {
  return payload_bytes;
}

constexpr KindPlugin ExactSizeKind(FilterKind kind, const char* name,
                                   bool (*writes)(Encoding)) {
  return {.kind = kind,
          .name = name,
          .owns_tag = &OwnsTag,
          .open = &OpenByParsing<&Parse, &OpenExactSizeBlock>,
          .inspect = &InspectByParsing<&Parse>,
          .append = &AppendExactSizeBlock,
          .writes = writes,
          .records_origin = false,
          .check_options = nullptr,
          .planned_bytes = nullptr,
          .build = nullptr,
          .fp_rate_at = &FpRateAt,
          .block_bytes = &BlockBytes};
}

}  // namespace

const KindPlugin kSpreadKind =
    ExactSizeKind(FilterKind::kSpread, "spread", &WritesAccurate);
const KindPlugin kSetKind =
    ExactSizeKind(FilterKind::kSet, "set", &WritesAccurate);
const KindPlugin kStandardKind =
    ExactSizeKind(FilterKind::kStandard, "standard", &WritesInPlace);

}  // namespace blockbloom::internal
