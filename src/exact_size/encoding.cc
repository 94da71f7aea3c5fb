// The exact-size kinds' entry points into the format: which of their two
// encodings a filter or a parsed block is of.
#include "src/exact_size/encoding.h"

#include "absl/strings/str_cat.h"
#include "src/core/block_bytes.h"
#include "src/exact_size/exact_size.h"

namespace blockbloom::internal {

absl::StatusOr<Filter> OpenExactSizeBlock(const ExactSizeBlock& parsed) {
  const FilterInfo& info = parsed.info;
  if (info.encoding == Encoding::kInPlace) {
    return OpenInPlaceFilter(parsed.payload, info.shape.num_probes, info.seed);
  }
  // A restored v3 payload dies with `parsed`: the filter keeps a copy.
  return OpenAccurateFilter(
      parsed.payload, info.kind,
      info.kind == FilterKind::kSet ? info.set_low_bits : info.shape.num_probes,
      info.seed, info.kind == FilterKind::kSet ? &parsed.set : nullptr,
      /*copy_payload=*/!parsed.restored.empty());
}

absl::Status AppendExactSizeBlock(const Filter& filter,
                                  const WriteOptions& options, std::string* dst,
                                  WriteStats* stats) {
  const bool in_place = filter.kind() == FilterKind::kStandard;
  const Encoding own = in_place ? Encoding::kInPlace : Encoding::kAccurate;
  if (options.compression != Compression::kNone) {
    return absl::InvalidArgumentError(
        "the accurate encoding is never compressed; use Encoding::kFull");
  }
  if (filter.bits().size() < kAccurateMinPayloadBytes ||
      filter.bits().size() > kAccurateMaxPayloadBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the accurate encoding holds ", kAccurateMinPayloadBytes,
                     " to ", kAccurateMaxPayloadBytes, " bytes of bits, not ",
                     filter.bits().size()));
  }
  const size_t start = dst->size();
  if (in_place) {
    AppendInPlace(filter, dst);
  } else {
    AppendAccurate(filter, dst);
  }
  FillWriteStats(own, filter.bits().size(), filter.bits().size(), start, *dst,
                 stats);
  return absl::OkStatus();
}

}  // namespace blockbloom::internal
