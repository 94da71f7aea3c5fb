#include "blockbloom/filter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/aligned_buffer.h"
#include "src/hash_inl.h"
#include "src/layout.h"
#include "src/probe.h"

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

}  // namespace

// ---------------------------------------------------------------- Filter

Filter::Filter(std::unique_ptr<internal::AlignedBuffer> owned,
               const uint8_t* bits, const FilterShape& shape, uint64_t seed,
               uint64_t num_keys)
    : owned_(std::move(owned)),
      bits_(bits),
      shape_(shape),
      seed_(seed),
      num_keys_(num_keys),
      lane_sets_(internal::LaneSetsFor(shape.num_probes)),
      kernels_(internal::ActiveKernels()),
      probe_hash_(kernels_->probe_hash),
      probe_key_(kernels_->probe_key) {}

Filter::Filter(Filter&&) noexcept = default;
Filter& Filter::operator=(Filter&&) noexcept = default;
Filter::~Filter() = default;

absl::StatusOr<Filter> Filter::Wrap(absl::Span<const uint8_t> bits,
                                    const FilterShape& shape, uint64_t seed,
                                    uint64_t num_keys) {
  if (absl::Status s = ValidateShape(shape); !s.ok()) return s;
  if (bits.size() != shape.size_bytes()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a filter of ", shape.num_blocks, " blocks needs ",
                     shape.size_bytes(), " bytes of bits, got ", bits.size()));
  }
  return Filter(nullptr, bits.data(), shape, seed, num_keys);
}

void Filter::MayContainBatch(absl::Span<const std::string_view> keys,
                             absl::Span<bool> results) const {
  CheckSameSize(keys.size(), results.size());
  kernels_->probe_keys({bits_, shape_.num_blocks, lane_sets_, seed_},
                       keys.data(), keys.size(), results.data());
}

void Filter::MayContainHashBatch(absl::Span<const uint64_t> hashes,
                                 absl::Span<bool> results) const {
  CheckSameSize(hashes.size(), results.size());
  kernels_->probe_hashes({bits_, shape_.num_blocks, lane_sets_, seed_},
                         hashes.data(), hashes.size(), results.data());
}

double Filter::EstimatedFpRate() const {
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
  if (options.shape.num_blocks != 0) {
    if (absl::Status s = ValidateShape(options.shape); !s.ok()) return s;
    absl::StatusOr<std::unique_ptr<internal::AlignedBuffer>> bits =
        internal::AlignedBuffer::Create(options.shape.size_bytes());
    if (!bits.ok()) return bits.status();
    builder.fixed_bits_ = *std::move(bits);
    return builder;
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
    internal::ReferenceInsert(fixed_bits_->data(), options_.shape.num_blocks,
                              internal::LaneSetsFor(options_.shape.num_probes),
                              hash);
  } else {
    hashes_.push_back(hash);
  }
}

absl::StatusOr<FilterShape> FilterBuilder::ShapeForKeys(
    uint64_t num_keys) const {
  if (options_.shape.num_blocks != 0) return options_.shape;
  if (num_keys == 0) {
    return FilterShape{1, DefaultProbes(options_.bits_per_key)};
  }
  if (options_.fp_rate != 0) return ShapeForFpRate(num_keys, options_.fp_rate);
  return ShapeForBitsPerKey(num_keys, options_.bits_per_key);
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
                  num_keys);
  }
  std::vector<uint64_t> hashes = std::move(hashes_);
  hashes_ = {};
  absl::StatusOr<FilterShape> shape = ShapeForKeys(num_keys);
  if (!shape.ok()) return shape.status();
  absl::StatusOr<std::unique_ptr<internal::AlignedBuffer>> bits =
      internal::AlignedBuffer::Create(shape->size_bytes());
  if (!bits.ok()) return bits.status();
  internal::InsertHashes((*bits)->data(), shape->num_blocks,
                         internal::LaneSetsFor(shape->num_probes),
                         hashes.data(), hashes.size());
  const uint8_t* data = (*bits)->data();
  return Filter(*std::move(bits), data, *shape, options_.seed, num_keys);
}

const char* ActiveSimdTarget() { return internal::ActiveTargetName(); }

}  // namespace blockbloom
