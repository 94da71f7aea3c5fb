#include "src/ribbon/layout.h"

#include <algorithm>
#include <cmath>

namespace blockbloom::internal::ribbon {

uint32_t BlocksForKeys(uint64_t keys, double load) {
  const double slots = static_cast<double>(keys) / load;
  const double blocks = std::ceil((slots + (kWidth - 1)) / 64.0);
  return static_cast<uint32_t>(
      std::clamp(blocks, 1.0, static_cast<double>(kMaxBlocks)));
}

uint64_t PayloadBytes(const RibbonLayout& layout) {
  uint64_t bytes = 0;
  for (int layer = 0; layer < layout.num_layers; ++layer) {
    bytes += LayerBytes(layout.num_blocks[layer], layout.upper_start[layer],
                        layout.result_bits);
  }
  return bytes;
}

}  // namespace blockbloom::internal::ribbon
