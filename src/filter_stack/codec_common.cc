#include "src/filter_stack/codec_common.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace blockbloom::redis_module::codec {

LayerRecord RecordOf(const Layer& layer) {
  return {layer.shape(), layer.capacity(), layer.fp_rate(), layer.count()};
}

absl::Status ValidateStack(const char* what, const StackOptions& options,
                           absl::Span<const LayerRecord> layers,
                           uint64_t max_bytes) {
  if (absl::Status s = FilterStack::ValidateOptions(options); !s.ok()) {
    return absl::DataLossError(absl::StrCat(what, ": ", s.message()));
  }
  if (layers.empty() || layers.size() > FilterStack::kMaxLayers) {
    return absl::DataLossError(absl::StrCat(what, ": ", layers.size(),
                                            " layers; a filter has 1 to ",
                                            FilterStack::kMaxLayers));
  }
  uint64_t total = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    const LayerRecord& layer = layers[i];
    if (absl::Status s = ValidateShape(layer.shape); !s.ok()) {
      return absl::DataLossError(
          absl::StrCat(what, ": layer ", i, ": ", s.message()));
    }
    if (layer.capacity < 1) {
      return absl::DataLossError(
          absl::StrCat(what, ": layer ", i, ": capacity 0"));
    }
    if (!(layer.fp_rate > 0 && layer.fp_rate < 1)) {
      return absl::DataLossError(absl::StrCat(what, ": layer ", i,
                                              ": error rate ", layer.fp_rate,
                                              " is not in (0, 1)"));
    }
    // At most 256 GiB per layer and 64 layers: no overflow.
    total += layer.shape.size_bytes();
  }
  if (total > max_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        what, ": the filter has ", total, " bytes of bits, over the limit of ",
        max_bytes, " bytes this server allows for one filter"));
  }
  return absl::OkStatus();
}

std::vector<Layer> MakeLayers(absl::Span<const LayerRecord> layers) {
  std::vector<Layer> out;
  out.reserve(layers.size());
  for (const LayerRecord& layer : layers) {
    out.emplace_back(layer.shape, layer.capacity, layer.fp_rate, layer.count);
  }
  return out;
}

}  // namespace blockbloom::redis_module::codec
