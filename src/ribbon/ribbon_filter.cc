#include "src/ribbon/ribbon_filter.h"

#include <algorithm>
#include <new>
#include <utility>

#include "src/core/filter_access.h"
#include "src/core/simd_target.h"
#include "src/ribbon/view.h"

namespace blockbloom::internal::ribbon {

Isa ActiveIsa() {
  // The CPU's best, capped at the vector width the SIMD target rule or
  // override allows (src/core/simd_target.h), so that one rule holds for
  // every kind.
  static const Isa best = BestIsa();
  const int bits = AllowedVectorBits();
  const Isa cap = bits >= 512   ? Isa::kAvx512
                  : bits >= 256 ? Isa::kAvx2
                  : bits >= 128 ? Isa::kPopcnt
                                : Isa::kPlain;
  return std::min(best, cap);
}

Filter MakeRibbonFilter(std::unique_ptr<AlignedBuffer> storage,
                        const uint8_t* payload, const RibbonLayout& layout,
                        uint64_t seed, uint64_t num_keys, bool owns_payload) {
  // AlignedBuffer's memory is 64-byte aligned: the view's alignment.
  RibbonView* view = new (storage->data()) RibbonView;
  MakeView(layout, payload, view);
  const FilterRef ref = RibbonRef(view, seed);
  // A ribbon filter has no blocked shape: one "block" of no probes, as a
  // fingerprint set, so that is_match_all() stays false.
  const FilterShape shape{1, 0, 0};
  Filter filter = FilterAccess::Make(
      std::move(storage), kRibbonOps, ref, shape, PayloadBytes(layout),
      num_keys,
      QueryKernels(layout.num_layers, layout.result_bits, ActiveIsa()));
  FilterAccess::SetOwnsBits(&filter, owns_payload);
  return filter;
}

absl::StatusOr<Filter> OpenRibbonFilter(absl::Span<const uint8_t> payload,
                                        const RibbonLayout& layout,
                                        uint64_t seed, uint64_t num_keys) {
  if (absl::Status s = CheckLayout(layout, payload.size()); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<AlignedBuffer>> storage =
      AlignedBuffer::Create(kViewBytes);
  if (!storage.ok()) return storage.status();
  return MakeRibbonFilter(*std::move(storage), payload.data(), layout, seed,
                          num_keys, /*owns_payload=*/false);
}

}  // namespace blockbloom::internal::ribbon
