#include "src/filter_stack/layer.h"

#include "src/core/layout.h"

namespace blockbloom::redis_module {

// A layer is sized for this fraction of its rate. The sizing math is exact
// for ideal hashes, and filled to capacity a layer measures its rate to
// within noise, but a little above it as often as below (1.003-1.009% at 1%
// over 10^6 absent items, docs/BENCHMARKS.md): users read the rate as a
// bound. 2% less costs 0.03 bits per item (log2(1/0.98) / ln 2).
constexpr double kSizingMargin = 0.98;

absl::StatusOr<Layer> Layer::Create(uint64_t capacity, double fp_rate) {
  absl::StatusOr<FilterShape> shape =
      ShapeForFpRate(capacity, fp_rate * kSizingMargin,
                     /*compact_small_filters=*/false);
  if (!shape.ok()) return shape.status();
  return Layer(*shape, capacity, fp_rate, 0);
}

Layer::Layer(const FilterShape& shape, uint64_t capacity, double fp_rate,
             uint64_t count)
    : shape_(shape),
      capacity_(capacity),
      fp_rate_(fp_rate),
      count_(count),
      kernels_(internal::KernelsFor(static_cast<uint32_t>(shape.lane_bits))),
      ref_(internal::OneBlockView(shape, /*seed=*/0)),
      table_(shape.size_bytes(),
             internal::BlockBytes(static_cast<uint32_t>(shape.lane_bits))) {}

bool Layer::Add(uint64_t hash) {
  uint8_t* block = table_.WritableBlock(BlockOf(hash));
  ++count_;
  return kernels_->add_hash(ref_, block, hash);
}

}  // namespace blockbloom::redis_module
