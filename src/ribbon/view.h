// A ribbon filter's view (blockbloom/internal/filter_ref.h, RibbonView) over
// its payload and layout, without copying the payload; and the layout back
// from a view, for writing the filter.
#ifndef BLOCKBLOOM_SRC_RIBBON_VIEW_H_
#define BLOCKBLOOM_SRC_RIBBON_VIEW_H_

#include <cstdint>

#include "absl/status/status.h"
#include "blockbloom/internal/filter_ref.h"
#include "src/ribbon/layout.h"

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

}  // namespace blockbloom::internal::ribbon

#endif  // BLOCKBLOOM_SRC_RIBBON_VIEW_H_
