#include "src/core/block_bytes.h"

#include "absl/strings/str_cat.h"

namespace blockbloom::internal {

absl::Status Corrupt(const std::string& what) {
  return absl::DataLossError(absl::StrCat("blockbloom filter: ", what));
}

uint16_t PackOrigin(const FilterOrigin& origin) {
  if (!origin.recorded()) return 0;
  return static_cast<uint16_t>((origin.level + 1) |
                               (origin.bottommost ? 1 << 5 : 0) |
                               (origin.group << 6));
}

FilterOrigin UnpackOrigin(uint16_t packed) {
  FilterOrigin origin;
  if ((packed & 0x1F) == 0) return origin;
  origin.level = (packed & 0x1F) - 1;
  origin.bottommost = (packed >> 5) & 1;
  origin.group = packed >> 6;
  return origin;
}

void FillWriteStats(Encoding encoding, uint64_t bits_bytes,
                    uint64_t payload_bytes, size_t start,
                    const std::string& dst, WriteStats* stats) {
  if (stats == nullptr) return;
  stats->encoding = encoding;
  stats->bits_bytes = bits_bytes;
  stats->payload_bytes = payload_bytes;
  stats->total_bytes = dst.size() - start;
  stats->overhead_bytes = stats->total_bytes - payload_bytes;
}

}  // namespace blockbloom::internal
