// The scalar reference query of a ribbon filter: what every kernel
// (kernels.cc) must answer, bit for bit, written for reading rather than
// speed (one bit of the solution at a time).
#ifndef BLOCKBLOOM_SRC_RIBBON_REFERENCE_H_
#define BLOCKBLOOM_SRC_RIBBON_REFERENCE_H_

#include <cstdint>
#include <cstring>

#include "src/ribbon/key_bits.h"
#include "src/ribbon/layout.h"
#include "src/ribbon/view.h"

namespace blockbloom::internal::ribbon {

// Bit `slot` of solution column `column` of a layer.
inline uint32_t SolutionBit(const RibbonLayerView& layer, int r, uint32_t slot,
                            int column) {
  const uint32_t block = slot / 64;
  uint64_t word;
  std::memcpy(&word,
              layer.words + 8 * (WordsBefore(block, layer.upper_start, r) +
                                 static_cast<size_t>(column)),
              8);
  return static_cast<uint32_t>(word >> (slot % 64)) & 1;
}

// True if the key of this hash may be in the filter.
inline bool ReferenceMayContain(const RibbonView& view, uint64_t hash) {
  uint64_t x = LayerZeroHash(hash, view.salt);
  for (int layer = 0; layer < view.num_layers; ++layer, x = Remix(x)) {
    const RibbonLayerView& lv = view.layers[layer];
    const uint32_t start = Start(x, lv.num_starts);
    const uint32_t code = BucketCode(lv.codes, start / kBucketSize);
    const bool last = layer + 1 == view.num_layers;
    if (!last && start % kBucketSize < view.bump_below[code]) continue;
    // Held here, if at all: every column of its start block must agree.
    const uint64_t row = Coefficients(x);
    const uint32_t result = ResultBits(x);
    const int cols =
        ColumnsOfBlock(start / 64, lv.upper_start, view.result_bits);
    for (int column = 0; column < cols; ++column) {
      uint32_t parity = 0;
      for (int i = 0; i < kWidth; ++i) {
        if ((row >> i) & 1) {
          parity ^= SolutionBit(lv, view.result_bits, start + i, column);
        }
      }
      if (parity != ((result >> column) & 1)) return false;
    }
    return true;
  }
  return false;  // no layers: a filter of no keys
}

}  // namespace blockbloom::internal::ribbon

#endif  // BLOCKBLOOM_SRC_RIBBON_REFERENCE_H_
