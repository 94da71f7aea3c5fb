// Ribbon filters as blockbloom Filters (FilterKind::kRibbon): the ref a
// probe reads (RibbonRef, as src/core/layout.h has one maker per kind), and
// the Filter over a built or opened payload, with its kernels chosen once.
#ifndef BLOCKBLOOM_SRC_RIBBON_RIBBON_FILTER_H_
#define BLOCKBLOOM_SRC_RIBBON_RIBBON_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "src/core/aligned_buffer.h"
#include "src/ribbon/kernels.h"
#include "src/ribbon/layout.h"
#include "src/ribbon/view.h"

namespace blockbloom::internal::ribbon {

// The FilterRef of a ribbon filter: its view (which points into its bytes).
inline FilterRef RibbonRef(const RibbonView* view, uint64_t seed) {
  FilterRef f = {view->num_layers > 0 ? view->layers[0].words : nullptr, 1,
                 nullptr, seed, 0};
  f.kind = FilterKind::kRibbon;
  f.view = view;
  return f;
}

// The room the view takes at the start of a ribbon Filter's storage.
inline constexpr size_t kViewBytes = (sizeof(RibbonView) + 63) / 64 * 64;

// The instruction set a new ribbon filter's kernels use on this CPU:
// BestIsa(), capped at the width the SIMD target rule or override allows
// (src/core/simd_target.h).
Isa ActiveIsa();

// A Filter over `payload` (PayloadBytes(layout) bytes, a checked layout).
// `storage` has kViewBytes at its start for the view, and holds the payload
// after them if `owns_payload` (a built or copied filter); otherwise the
// payload is the caller's and must outlive the filter.
Filter MakeRibbonFilter(std::unique_ptr<AlignedBuffer> storage,
                        const uint8_t* payload, const RibbonLayout& layout,
                        uint64_t seed, uint64_t num_keys, bool owns_payload);

// Opens a payload read from a file where it lies (no copy, any alignment):
// CheckLayout, then MakeRibbonFilter with storage for the view only.
// DataLoss for a layout that does not fit the payload; ResourceExhausted if
// the view's few hundred bytes cannot be had.
absl::StatusOr<Filter> OpenRibbonFilter(absl::Span<const uint8_t> payload,
                                        const RibbonLayout& layout,
                                        uint64_t seed, uint64_t num_keys);

}  // namespace blockbloom::internal::ribbon

#endif  // BLOCKBLOOM_SRC_RIBBON_RIBBON_FILTER_H_
