#include "src/ribbon/view.h"

#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"
#include "src/ribbon/sizing.h"

namespace blockbloom::internal::ribbon {
namespace {

absl::Status Bad(const std::string& what) {
  return absl::DataLossError(
      absl::StrCat("blockbloom filter: ribbon layout: ", what));
}

}  // namespace

absl::Status CheckLayout(const RibbonLayout& layout, uint64_t payload_bytes) {
  if (layout.num_layers < 0 || layout.num_layers > kMaxLayers) {
    return Bad(absl::StrCat(layout.num_layers, " layers, outside [0, ",
                            kMaxLayers, "]"));
  }
  if (layout.result_bits < 1 || layout.result_bits > kMaxResultBits) {
    return Bad(absl::StrCat("r = ", layout.result_bits, " is outside [1, ",
                            kMaxResultBits, "]"));
  }
  if (layout.bump_lo > layout.bump_hi || layout.bump_hi >= kBucketSize) {
    return Bad(absl::StrCat("bump thresholds ", layout.bump_lo, " and ",
                            layout.bump_hi, " are not 0 <= lo <= hi < ",
                            kBucketSize));
  }
  uint64_t bytes = 0;
  for (int layer = 0; layer < layout.num_layers; ++layer) {
    const uint32_t blocks = layout.num_blocks[layer];
    if (blocks < 1 || blocks > kMaxBlocks) {
      return Bad(absl::StrCat("layer ", layer, " has ", blocks,
                              " blocks, outside [1, 2^26]"));
    }
    if (layout.upper_start[layer] > blocks) {
      return Bad(absl::StrCat("layer ", layer, "'s upper start ",
                              layout.upper_start[layer], " is past its ",
                              blocks, " blocks"));
    }
    bytes += LayerBytes(blocks, layout.upper_start[layer], layout.result_bits);
  }
  if (bytes != payload_bytes) {
    return Bad(absl::StrCat("the layers take ", bytes, " bytes, the payload ",
                            "has ", payload_bytes));
  }
  return absl::OkStatus();
}

void MakeView(const RibbonLayout& layout, const uint8_t* payload,
              RibbonView* view) {
  *view = RibbonView{};
  view->salt = layout.salt;
  for (uint32_t code = 0; code < 4; ++code) {
    view->bump_below[code] = static_cast<uint8_t>(
        BumpThreshold(code, layout.bump_lo, layout.bump_hi));
  }
  view->num_layers = layout.num_layers;
  view->result_bits = layout.result_bits;
  uint64_t offset = 0;
  for (int layer = 0; layer < layout.num_layers; ++layer) {
    const uint32_t blocks = layout.num_blocks[layer];
    const uint32_t upper = layout.upper_start[layer];
    RibbonLayerView& lv = view->layers[layer];
    lv.words = payload + offset;
    lv.codes = lv.words + 8 * WordsBefore(blocks, upper, layout.result_bits);
    lv.num_starts = NumStarts(blocks);
    lv.upper_start = upper;
    lv.num_blocks = blocks;
    offset += LayerBytes(blocks, upper, layout.result_bits);
    view->num_slots += uint64_t{blocks} * 64;
  }
  view->estimated_fp_rate = ExactFpRate(*view);
}

RibbonLayout LayoutOf(const RibbonView& view) {
  RibbonLayout layout;
  layout.result_bits = view.result_bits;
  layout.salt = view.salt;
  layout.bump_lo = view.bump_below[2];
  layout.bump_hi = view.bump_below[1];
  layout.num_layers = view.num_layers;
  for (int layer = 0; layer < view.num_layers; ++layer) {
    layout.num_blocks[layer] = view.layers[layer].num_blocks;
    layout.upper_start[layer] = view.layers[layer].upper_start;
  }
  return layout;
}

namespace {

double RibbonFpRate(const FilterRef& ref, const FilterShape&, uint64_t) {
  return ViewOf<RibbonView>(ref).estimated_fp_rate;
}

// A copy of the view and of the payload `bits` at `at` (64 +
// sizeof(RibbonView) + bits.size() bytes): the view at a 64-byte boundary
// (its alignment; malloc gives 16), then the payload, the copy's layers
// pointing into the copied payload.
size_t RibbonCopyBytes(const FilterRef&, absl::Span<const uint8_t> bits) {
  return 64 + sizeof(RibbonView) + bits.size();
}

FilterRef CopyRibbon(const FilterRef& ref, absl::Span<const uint8_t> bits,
                     uint8_t* at) {
  const RibbonView& view = ViewOf<RibbonView>(ref);
  const uintptr_t address = reinterpret_cast<uintptr_t>(at);
  uint8_t* const view_at = at + ((64 - address % 64) % 64);
  uint8_t* const bits_at = view_at + sizeof(RibbonView);
  if (!bits.empty()) std::memcpy(bits_at, bits.data(), bits.size());
  RibbonView* copy = new (view_at) RibbonView(view);
  for (int layer = 0; layer < copy->num_layers; ++layer) {
    RibbonLayerView& lv = copy->layers[layer];
    lv.words = bits_at + (view.layers[layer].words - bits.data());
    lv.codes = bits_at + (view.layers[layer].codes - bits.data());
  }
  FilterRef f = ref;
  f.view = copy;
  f.bits = copy->num_layers > 0 ? copy->layers[0].words : nullptr;
  return f;
}

}  // namespace

const KindOps kRibbonOps = {FilterKind::kRibbon, &RibbonFpRate,
                            &RibbonCopyBytes, &CopyRibbon,
                            /*set_low_bits=*/nullptr};

}  // namespace blockbloom::internal::ribbon
