// A ribbon filter's view (RibbonView: FilterRef::view of a kRibbon filter)
// over its payload and layout, without copying the payload; the layout back
// from a view, for writing the filter; and the kind's operations.
#ifndef BLOCKBLOOM_SRC_RIBBON_VIEW_H_
#define BLOCKBLOOM_SRC_RIBBON_VIEW_H_

#include <cstdint>

#include "absl/status/status.h"
#include "blockbloom/internal/filter_ref.h"
#include "src/core/kind.h"
#include "src/ribbon/layout.h"

namespace blockbloom::internal {

// One layer of a ribbon filter (src/ribbon/layout.h): where its solution
// words and bump codes lie in the filter's bytes, and its geometry.
struct RibbonLayerView {
  const uint8_t* words;  // block b: cols(b) little-endian 64-bit words
  const uint8_t* codes;  // 2-bit bump code of bucket k: byte k / 4
  uint32_t num_starts;   // 64 * num_blocks - 63
  uint32_t upper_start;  // blocks from here on have result_bits + 1 columns
  uint32_t num_blocks;
  uint32_t reserved;
};
// What a probe of a ribbon filter needs, prepared once per opened filter (no
// copy of its bytes): the layers found in them and the parameters every
// query reads. A query of a key that stays in layer 0 (about 95% of absent
// keys) reads only the first 64 bytes.
struct alignas(64) RibbonView {
  uint32_t salt;          // the build's retry salt (src/ribbon/key_bits.h)
  uint8_t bump_below[4];  // code t: offsets below bump_below[t] are bumped
  int32_t num_layers;     // 0 for a filter of no keys
  int32_t result_bits;    // r: columns of the blocks below upper_start
  RibbonLayerView layers[ribbon::kMaxLayers];
  // The exact expected false-positive rate (src/ribbon/sizing.h), computed
  // when the filter is made: Filter::EstimatedFpRate() returns it.
  double estimated_fp_rate;
  uint64_t num_slots;  // over all layers
};

}  // namespace blockbloom::internal

namespace blockbloom::internal::ribbon {

// DataLoss naming the first field out of range: r, the layer count, the
// thresholds, a layer's blocks or upper start, or a payload of another size
// than the layers make. What a reader checks before it makes a view.
absl::Status CheckLayout(const RibbonLayout& layout, uint64_t payload_bytes);

// The view of a checked layout over `payload` (PayloadBytes(layout) bytes,
// any alignment, which must outlive the view), with its exact
// estimated_fp_rate (sizing.h).
void MakeView(const RibbonLayout& layout, const uint8_t* payload,
              RibbonView* view);

RibbonLayout LayoutOf(const RibbonView& view);

// The ribbon kind's operations (src/core/kind.h).
extern const KindOps kRibbonOps;

}  // namespace blockbloom::internal::ribbon

#endif  // BLOCKBLOOM_SRC_RIBBON_VIEW_H_
