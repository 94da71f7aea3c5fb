// The in-place encoding (format version 4): a standard Bloom filter of
// LevelDB's byte budget | tag (k - 1). No checksum: the engine's block
// checksum protects it (src/exact_size/in_place.h).
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "src/core/block_bytes.h"
#include "src/exact_size/encoding.h"
#include "src/exact_size/exact_size.h"
#include "src/exact_size/in_place.h"

namespace blockbloom::internal {

// The in-place encoding has nothing to verify: its tag gives k, its size
// the bits, and the engine's block checksum protects both.
absl::StatusOr<ExactSizeBlock> ParseInPlace(absl::Span<const uint8_t> block,
                                            const ReadOptions& options) {
  const size_t n = block.size();
  if (!InPlaceSizeValid(n)) {
    return Corrupt(absl::StrCat(
        "inconsistent sizes: ", n, " bytes, an in-place filter has ",
        kInPlaceMinPayloadBytes + kInPlaceTrailerBytes, " to ",
        kInPlaceMaxPayloadBytes + kInPlaceTrailerBytes));
  }
  ExactSizeBlock p;
  FilterInfo& info = p.info;
  info.encoding = Encoding::kInPlace;
  info.major_version = 1;
  info.minor_version = 0;
  info.kind = FilterKind::kStandard;
  info.shape = {1, (block[n - 1] & 0x0F) + 1, 0};
  info.seed = options.seed;
  info.compression = Compression::kNone;
  info.bits_bytes = info.payload_bytes = n - kInPlaceTrailerBytes;
  info.overhead_bytes = kInPlaceTrailerBytes;
  info.total_bytes = n;
  p.payload = block.subspan(0, info.payload_bytes);
  return p;
}

void AppendInPlace(const Filter& filter, std::string* dst) {
  const absl::Span<const uint8_t> bits = filter.bits();
  dst->append(reinterpret_cast<const char*>(bits.data()), bits.size());
  dst->push_back(static_cast<char>(kInPlaceTag + filter.num_probes() - 1));
}

}  // namespace blockbloom::internal
