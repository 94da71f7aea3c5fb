#include "blockbloom/filter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/aligned_buffer.h"
#include "src/fingerprint_set.h"
#include "src/hash_inl.h"
#include "src/layout.h"
#include "src/packed.h"
#include "src/probe.h"
#include "src/probe_small.h"
#include "src/sizing_internal.h"

namespace blockbloom {
namespace {

void CheckSameSize(size_t inputs, size_t results) {
  if (inputs != results) {
    std::fprintf(stderr,
                 "blockbloom: batch probe of %zu keys given %zu results\n",
                 inputs, results);
    std::abort();
  }
}

// The k a filter with no keys gets: any k answers "no" for every key, so
// take the one a filter of these bits/key would have.
int DefaultProbes(double bits_per_key) {
  const double k = std::round(bits_per_key * 0.6931);
  return static_cast<int>(std::clamp(k, 1.0, 16.0));
}

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

Filter::Filter(std::unique_ptr<internal::AlignedBuffer> owned,
               const uint8_t* bits, const FilterShape& shape, uint64_t seed,
               uint64_t num_keys, const internal::Kernels* kernels)
    : owned_(std::move(owned)),
      shape_(shape),
      size_bytes_(shape.size_bytes()),
      num_keys_(num_keys),
      ref_{bits, shape.num_blocks,
           internal::LaneSetsFor(std::max(shape.num_probes, 1)), seed,
           static_cast<uint32_t>(shape.lane_bits)},
      kernels_(kernels) {
  // A small filter (one block of other lanes) is a one-block filter with
  // spread lanes of equal width: the gather kernels probe it.
  if (shape.num_blocks == 1 && shape.lane_bits != internal::kLaneBits) {
    internal::SpreadLanes(16 * static_cast<uint32_t>(shape.lane_bits), &ref_);
    kernels_ = internal::SpreadKernels(size_bytes_);
  }
  probe_hash_ = kernels_->probe_hash;
  probe_key_ = kernels_->probe_key;
}

Filter::Filter(std::unique_ptr<internal::AlignedBuffer> owned, Layout layout,
               const internal::FilterRef& ref, const FilterShape& shape,
               uint64_t size_bytes, uint64_t num_keys,
               const internal::Kernels* kernels)
    : owned_(std::move(owned)),
      layout_(layout),
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
  CheckSameSize(keys.size(), results.size());
  kernels_->probe_keys(ref_, keys.data(), keys.size(), results.data());
}

void Filter::MayContainHashBatch(absl::Span<const uint64_t> hashes,
                                 absl::Span<bool> results) const {
  CheckSameSize(hashes.size(), results.size());
  kernels_->probe_hashes(ref_, hashes.data(), hashes.size(), results.data());
}

size_t Filter::owned_bytes() const {
  return owned_ == nullptr ? 0 : owned_->size();
}

int Filter::set_low_bits() const {
  return ref_.set == nullptr ? 0 : ref_.set->low_bits;
}

double Filter::EstimatedFpRate() const {
  if (is_match_all()) return 1.0;
  switch (layout_) {
    case Layout::kBlocked:
      break;
    case Layout::kSpread:
      return internal::OneBlockFpRate(num_keys_, ref_.num_bits,
                                      shape_.num_probes);
    case Layout::kSet:
      return std::min(1.0, static_cast<double>(num_keys_) /
                               static_cast<double>(ref_.set->universe));
  }
  return blockbloom::EstimatedFpRate(shape_, num_keys_).value_or(1.0);
}

// ---------------------------------------------------------- FilterBuilder

FilterBuilder::FilterBuilder(const FilterOptions& options)
    : options_(options) {}
FilterBuilder::FilterBuilder(FilterBuilder&&) noexcept = default;
FilterBuilder& FilterBuilder::operator=(FilterBuilder&&) noexcept = default;
FilterBuilder::~FilterBuilder() = default;

absl::StatusOr<FilterBuilder> FilterBuilder::Create(
    const FilterOptions& options) {
  FilterBuilder builder(options);
  if (options.packed && options.shape.num_blocks != 0) {
    return absl::InvalidArgumentError(
        "a packed filter is sized by bits_per_key, not a fixed shape");
  }
  if (options.shape.num_blocks != 0) {
    if (absl::Status s = ValidateShape(options.shape); !s.ok()) return s;
    absl::StatusOr<std::unique_ptr<internal::AlignedBuffer>> bits =
        internal::AlignedBuffer::Create(options.shape.size_bytes());
    if (!bits.ok()) return bits.status();
    builder.fixed_bits_ = *std::move(bits);
    return builder;
  }
  if (options.packed && options.fp_rate != 0) {
    return absl::InvalidArgumentError(
        "a packed filter is sized by bits_per_key, not fp_rate");
  }
  if (options.fp_rate != 0) {
    if (!(options.fp_rate > 0 && options.fp_rate < 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("fp_rate must be in (0, 1), got ", options.fp_rate));
    }
    return builder;
  }
  if (!std::isfinite(options.bits_per_key) || options.bits_per_key <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("bits_per_key must be a positive finite number, got ",
                     options.bits_per_key));
  }
  return builder;
}

void FilterBuilder::Add(std::string_view key) {
  AddHash(internal::Hash64(key, options_.seed));
}

void FilterBuilder::AddHash(uint64_t hash) {
  if (num_keys_ > 0 && hash == last_hash_) return;
  last_hash_ = hash;
  ++num_keys_;
  if (fixed_bits_ != nullptr) {
    const internal::FilterRef ref = {
        fixed_bits_->data(), options_.shape.num_blocks,
        internal::LaneSetsFor(options_.shape.num_probes), options_.seed,
        static_cast<uint32_t>(options_.shape.lane_bits)};
    internal::ReferenceInsert(ref, fixed_bits_->data(), hash);
  } else {
    hashes_.push_back(hash);
  }
}

absl::StatusOr<FilterShape> FilterBuilder::ShapeForKeys(
    uint64_t num_keys) const {
  if (options_.shape.num_blocks != 0) return options_.shape;
  if (num_keys == 0) {
    // One block of the narrowest lanes allowed: 2 bytes, or 64.
    return FilterShape{1, DefaultProbes(options_.bits_per_key),
                       options_.compact_small_filters ? 1 : 32};
  }
  if (options_.fp_rate != 0) {
    return ShapeForFpRate(num_keys, options_.fp_rate,
                          options_.compact_small_filters);
  }
  return ShapeForBitsPerKey(num_keys, options_.bits_per_key,
                            options_.compact_small_filters);
}

absl::StatusOr<Filter> FilterBuilder::Finish() {
  const uint64_t num_keys = num_keys_;
  num_keys_ = 0;
  if (fixed_bits_ != nullptr) {
    // Keys went straight in. A later round (rare) buffers hashes instead, so
    // that no second filter's worth of memory is held before it is needed.
    std::unique_ptr<internal::AlignedBuffer> bits = std::move(fixed_bits_);
    const uint8_t* data = bits->data();
    return Filter(std::move(bits), data, options_.shape, options_.seed,
                  num_keys, internal::KernelsFor(options_.shape.lane_bits));
  }
  std::vector<uint64_t> hashes = std::move(hashes_);
  hashes_ = {};
  if (options_.packed) {
    const uint64_t payload_bytes =
        internal::PackedBlockBytes(num_keys, options_.bits_per_key) -
        internal::kPackedTrailerBytes;
    return internal::BuildPackedFilter(&hashes, payload_bytes, options_.seed,
                                       DefaultProbes(options_.bits_per_key));
  }
  absl::StatusOr<FilterShape> shape = ShapeForKeys(num_keys);
  if (!shape.ok()) return shape.status();
  absl::StatusOr<std::unique_ptr<internal::AlignedBuffer>> bits =
      internal::AlignedBuffer::Create(shape->size_bytes());
  if (!bits.ok()) return bits.status();
  uint8_t* data = (*bits)->data();
  const internal::Kernels* kernels =
      internal::KernelsFor(static_cast<uint32_t>(shape->lane_bits));
  const internal::FilterRef ref = {
      data, shape->num_blocks, internal::LaneSetsFor(shape->num_probes),
      options_.seed, static_cast<uint32_t>(shape->lane_bits)};
  kernels->insert(ref, data, hashes.data(), hashes.size());
  return Filter(*std::move(bits), data, *shape, options_.seed, num_keys,
                kernels);
}

const char* ActiveSimdTarget() { return internal::ActiveTargetName(); }

}  // namespace blockbloom
