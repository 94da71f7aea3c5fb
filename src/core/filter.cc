#include "blockbloom/filter.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/core/aligned_buffer.h"
#include "src/core/batch_size.h"
#include "src/core/kind.h"
#include "src/core/layout.h"
#include "src/core/probe.h"
#include "src/core/probe_small.h"
#include "src/core/simd_target.h"
#include "src/core/sizing_internal.h"

namespace blockbloom {
namespace {

// A filter that cannot say no: the fail-open stand-in (Filter::MatchAll).
bool MatchAllHash(const internal::FilterRef&, uint64_t) { return true; }
bool MatchAllKey(const internal::FilterRef&, std::string_view) { return true; }
void MatchAllHashes(const internal::FilterRef&, const uint64_t*, size_t n,
                    bool* results) {
  std::fill(results, results + n, true);
}
void MatchAllKeys(const internal::FilterRef&, const std::string_view*, size_t n,
                  bool* results) {
  std::fill(results, results + n, true);
}
const internal::Kernels kMatchAllKernels = {
    &MatchAllHash,          &MatchAllKey,       &MatchAllHashes,
    &MatchAllKeys,          /*insert=*/nullptr, /*add_hash=*/nullptr,
    /*add_hashes=*/nullptr, "match-all"};

}  // namespace

// ---------------------------------------------------------------- Filter

// Programs compiled against an earlier 0.x release baked in Filter's size
// and inline its accessors (docs/COMPATIBILITY.md): the layout stays that of
// 0.1.0 until the next major version.
static_assert(sizeof(void*) != 8 ||
              (sizeof(Filter) == 136 && sizeof(internal::FilterRef) == 64));

Filter::Filter(std::unique_ptr<internal::AlignedBuffer> owned,
               const uint8_t* bits, const FilterShape& shape, uint64_t seed,
               uint64_t num_keys, const internal::Kernels* kernels)
    : owned_(std::move(owned)),
      owns_bits_(owned_ != nullptr),
      shape_(shape),
      size_bytes_(shape.size_bytes()),
      num_keys_(num_keys),
      ref_(internal::BlockedRef(bits, shape, seed)),
      kernels_(kernels) {
  // A small filter (one block of other lanes) is a one-block filter with
  // spread lanes of equal width (without the accurate encoding's high mix):
  // the gather kernels probe it.
  if (shape.num_blocks == 1 && shape.lane_bits != internal::kLaneBits) {
    ref_ =
        internal::SpreadRef(bits, 16 * static_cast<uint32_t>(shape.lane_bits),
                            shape.num_probes, seed, /*mix_high=*/false);
    ref_.lane_bits = static_cast<uint32_t>(shape.lane_bits);
    kernels_ = internal::SpreadKernels(size_bytes_);
  }
  ref_.ops = &internal::kBlockedOps;
  probe_hash_ = kernels_->probe_hash;
  probe_key_ = kernels_->probe_key;
}

Filter::Filter(std::unique_ptr<internal::AlignedBuffer> owned,
               const internal::FilterRef& ref, const FilterShape& shape,
               uint64_t size_bytes, uint64_t num_keys,
               const internal::Kernels* kernels)
    : owned_(std::move(owned)),
      kind_(ref.ops->kind),
      owns_bits_(owned_ != nullptr),
      shape_(shape),
      size_bytes_(size_bytes),
      num_keys_(num_keys),
      ref_(ref),
      kernels_(kernels),
      probe_hash_(kernels->probe_hash),
      probe_key_(kernels->probe_key) {}

Filter::Filter(Filter&&) noexcept = default;
Filter& Filter::operator=(Filter&&) noexcept = default;
Filter::~Filter() = default;

absl::StatusOr<Filter> Filter::Wrap(absl::Span<const uint8_t> bits,
                                    const FilterShape& shape, uint64_t seed,
                                    uint64_t num_keys) {
  if (absl::Status s = ValidateShape(shape); !s.ok()) return s;
  if (bits.size() != shape.size_bytes()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a filter of ", shape.num_blocks, " blocks of ",
                     shape.lane_bits, "-bit lanes needs ", shape.size_bytes(),
                     " bytes of bits, got ", bits.size()));
  }
  return Filter(nullptr, bits.data(), shape, seed, num_keys,
                internal::KernelsFor(static_cast<uint32_t>(shape.lane_bits)));
}

Filter Filter::MatchAll() {
  return Filter(nullptr, nullptr, FilterShape{0, 0, 0}, 0, 0,
                &kMatchAllKernels);
}

void Filter::MayContainBatch(absl::Span<const std::string_view> keys,
                             absl::Span<bool> results) const {
  internal::CheckBatchSize("batch probe", keys.size(), results.size());
  kernels_->probe_keys(ref_, keys.data(), keys.size(), results.data());
}

void Filter::MayContainHashBatch(absl::Span<const uint64_t> hashes,
                                 absl::Span<bool> results) const {
  internal::CheckBatchSize("batch probe", hashes.size(), results.size());
  kernels_->probe_hashes(ref_, hashes.data(), hashes.size(), results.data());
}

size_t Filter::owned_bytes() const {
  return owned_ == nullptr ? 0 : owned_->size();
}

int Filter::set_low_bits() const {
  const internal::KindOps& ops = *ref_.ops;
  return ops.set_low_bits == nullptr ? 0 : ops.set_low_bits(ref_);
}

double Filter::EstimatedFpRate() const {
  if (is_match_all()) return 1.0;
  return ref_.ops->estimated_fp_rate(ref_, shape_, num_keys_);
}

const char* ActiveSimdTarget() { return internal::ActiveTargetName(); }

absl::Status SetSimdTarget(std::string_view name) {
  return internal::SetSimdTargetByName(name);
}

}  // namespace blockbloom
