// FilterBuilder (blockbloom/filter.h): collects the keys' hashes, then builds
// the filter its options ask for. It sits above the filter kinds it can
// build: the blocked filter (src/core), the ribbon filter (src/ribbon) and
// the exact-size filters of one data block each (src/exact_size).
#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "blockbloom/filter.h"
#include "src/core/aligned_buffer.h"
#include "src/core/hash_chunks.h"
#include "src/core/key_hash.h"
#include "src/core/layout.h"
#include "src/core/probe.h"
#include "src/exact_size/exact_size.h"
#include "src/exact_size/in_place.h"
#include "src/ribbon/builder.h"
#include "src/ribbon/sizing.h"

namespace blockbloom {
namespace {

// The k a filter with no keys gets: any k answers "no" for every key, so
// take the one a filter of these bits/key would have.
int DefaultProbes(double bits_per_key) {
  const double k = std::round(bits_per_key * 0.6931);
  return static_cast<int>(std::clamp(k, 1.0, 16.0));
}

// kRibbon: below this many keys the builder makes both kinds and keeps the
// better one (RibbonIsBetter). The estimates are rough for small filters,
// whose layers are a few 64-slot blocks: at 10 bits/key (30 key sets each),
// 1,000 keys estimated 0.122% and built 0.157%, 2,048 keys estimated 0.267%
// and built 0.163%, 5,000 estimated 0.189% and built 0.129%; and at a few
// dozen keys a one-block ribbon (3 columns at 20 keys: 12.5%) loses to the
// blocked kind. So the estimate alone can give small tables (an LSM tree's
// small files, ~400 keys each) the worse kind; both builds of so few keys
// take microseconds.
constexpr uint64_t kBuildBothBelow = 8192;

// kRibbon: whether a ribbon is the better filter for n keys, by the
// estimates: smaller for an fp_rate, more accurate in a bits_per_key budget.
// Below a few dozen keys the 64-slot minimum of a layer and one column per
// slot make a ribbon the worse one (RocksDB's Ribbon builder makes the same
// check and builds its Bloom filter for small filters).
bool RibbonWins(const FilterOptions& options, uint64_t num_keys) {
  if (num_keys == 0) return true;  // no layers, no bytes
  const bool compact = options.compact_small_filters;
  if (options.fp_rate != 0) {
    absl::StatusOr<FilterShape> blocked =
        ShapeForFpRate(num_keys, options.fp_rate, compact);
    return !blocked.ok() ||
           internal::ribbon::EstimatedPayloadBytes(num_keys, options.fp_rate) <
               blocked->size_bytes();
  }
  absl::StatusOr<FilterShape> blocked =
      ShapeForBitsPerKey(num_keys, options.bits_per_key, compact);
  if (!blocked.ok()) return true;
  absl::StatusOr<double> blocked_rate = EstimatedFpRate(*blocked, num_keys);
  return !blocked_rate.ok() ||
         internal::ribbon::EstimatedFpRate(num_keys, options.bits_per_key) <
             *blocked_rate;
}

// Built both kinds (small key sets): the ribbon is kept if it is more
// accurate in no more bytes (a bits_per_key budget), or smaller at the asked
// rate (an fp_rate).
bool RibbonIsBetter(const FilterOptions& options, const Filter& ribbon,
                    const Filter& blocked) {
  const size_t ribbon_bytes = ribbon.bits().size();
  const size_t blocked_bytes = blocked.bits().size();
  if (options.fp_rate != 0) return ribbon_bytes < blocked_bytes;
  return ribbon.EstimatedFpRate() < blocked.EstimatedFpRate() &&
         ribbon_bytes <= blocked_bytes;
}

}  // namespace

FilterBuilder::FilterBuilder(const FilterOptions& options)
    : options_(options) {}

bool FilterBuilder::SetSize(double bits_per_key, double fp_rate) {
  if (fixed_bits_ != nullptr || options_.exact_size ||
      !std::isfinite(bits_per_key) || bits_per_key <= 0 ||
      !(fp_rate >= 0 && fp_rate < 1)) {
    return false;
  }
  options_.bits_per_key = bits_per_key;
  options_.fp_rate = fp_rate;
  return true;
}

// The cursor points into memory the moved-to builder now owns: the source
// must not keep it.
FilterBuilder::FilterBuilder(FilterBuilder&& other) noexcept
    : options_(other.options_),
      next_(std::exchange(other.next_, nullptr)),
      end_(std::exchange(other.end_, nullptr)),
      hashes_(std::move(other.hashes_)),
      fixed_bits_(std::move(other.fixed_bits_)),
      pending_(std::move(other.pending_)),
      num_keys_(std::exchange(other.num_keys_, 0)),
      last_hash_(other.last_hash_) {}

FilterBuilder& FilterBuilder::operator=(FilterBuilder&& other) noexcept {
  if (this != &other) {
    options_ = other.options_;
    next_ = std::exchange(other.next_, nullptr);
    end_ = std::exchange(other.end_, nullptr);
    hashes_ = std::move(other.hashes_);
    fixed_bits_ = std::move(other.fixed_bits_);
    pending_ = std::move(other.pending_);
    num_keys_ = std::exchange(other.num_keys_, 0);
    last_hash_ = other.last_hash_;
  }
  return *this;
}

FilterBuilder::~FilterBuilder() = default;

absl::StatusOr<FilterBuilder> FilterBuilder::Create(
    const FilterOptions& options) {
  FilterBuilder builder(options);
  const bool exact_size = options.exact_size;
  if (options.kind != FilterKind::kBlocked &&
      options.kind != FilterKind::kRibbon) {
    return absl::InvalidArgumentError(
        absl::StrCat("FilterOptions::kind must be kBlocked or kRibbon, not ",
                     static_cast<int>(options.kind),
                     " (exact-size kinds are chosen by exact_size)"));
  }
  if (options.kind == FilterKind::kRibbon && exact_size) {
    return absl::InvalidArgumentError(
        "a ribbon filter (kind kRibbon) is not an exact-size filter: unset "
        "exact_size, or build kind kBlocked");
  }
  if (options.kind == FilterKind::kRibbon && options.shape.num_blocks != 0) {
    return absl::InvalidArgumentError(
        "a ribbon filter (kind kRibbon) is sized by bits_per_key or fp_rate, "
        "not a fixed shape: unset shape, or build kind kBlocked");
  }
  if (exact_size && options.shape.num_blocks != 0) {
    return absl::InvalidArgumentError(
        "an exact-size filter is sized by bits_per_key, not a fixed shape");
  }
  if (options.shape.num_blocks != 0) {
    if (absl::Status s = ValidateShape(options.shape); !s.ok()) return s;
    absl::StatusOr<std::unique_ptr<internal::AlignedBuffer>> bits =
        internal::AlignedBuffer::Create(options.shape.size_bytes());
    if (!bits.ok()) return bits.status();
    builder.fixed_bits_ = *std::move(bits);
    return builder;
  }
  if (exact_size && options.fp_rate != 0) {
    return absl::InvalidArgumentError(
        "an exact-size filter is sized by bits_per_key, not fp_rate");
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

namespace {

// Keys longer than 16 bytes are hashed and added out of line, reached by a
// jump: XXH3's code for them needs six callee-saved registers, and saving
// and restoring them in Add() cost more than hashing a 16-byte key.
ABSL_ATTRIBUTE_NOINLINE void AddLongKey(FilterBuilder& builder,
                                        std::string_view key, uint64_t seed) {
  builder.AddHash(internal::Hash64(key, seed));
}

}  // namespace

void FilterBuilder::Add(std::string_view key) {
  if (key.size() > 16) return AddLongKey(*this, key, options_.seed);
  AddHash(internal::Hash64(key, options_.seed));
}

void FilterBuilder::AddToNewChunk(uint64_t hash) {
  MakeRoom();
  *next_++ = hash;
}

void FilterBuilder::MakeRoom() {
  if (fixed_bits_ != nullptr) {
    if (pending_ == nullptr) {
      pending_.reset(new uint64_t[kPendingHashes]);
    } else {
      InsertPending(next_);
    }
    next_ = pending_.get();
    end_ = next_ + kPendingHashes;
    return;
  }
  if (hashes_ == nullptr) hashes_ = std::make_unique<internal::HashChunks>();
  next_ = hashes_->NewChunk(&end_);
}

// Inserts [pending_, end) into the fixed-shape filter.
void FilterBuilder::InsertPending(const uint64_t* end) {
  const internal::FilterRef ref =
      internal::BlockedRef(fixed_bits_->data(), options_.shape, options_.seed);
  internal::KernelsFor(ref.lane_bits)
      ->insert(ref, fixed_bits_->data(), pending_.get(),
               static_cast<size_t>(end - pending_.get()));
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

FilterBuilder::Plan FilterBuilder::PlanFor(uint64_t num_keys) const {
  Plan plan;
  if (options_.exact_size) {
    // The block's kind (one of the exact-size kinds) is chosen at Finish();
    // its size is not.
    plan.kind = FilterKind::kStandard;
    plan.payload_bytes =
        internal::ExactSizeBytes(num_keys, options_.bits_per_key);
    return plan;
  }
  absl::StatusOr<FilterShape> shape =
      fixed_bits_ != nullptr ? options_.shape : ShapeForKeys(num_keys);
  if (shape.ok()) plan.shape = *shape;
  plan.payload_bytes = plan.shape.size_bytes();
  // Finish() keeps the smaller (or more accurate) of both builds below
  // kBuildBothBelow keys; the estimate takes the ribbon where its estimate
  // wins, as Finish() does above that.
  if (options_.kind == FilterKind::kRibbon && num_keys > 0 &&
      RibbonWins(options_, num_keys)) {
    const double rate = options_.fp_rate != 0
                            ? options_.fp_rate
                            : internal::ribbon::EstimatedFpRate(
                                  num_keys, options_.bits_per_key);
    const uint64_t ribbon =
        internal::ribbon::EstimatedPayloadBytes(num_keys, rate);
    if (!(num_keys < kBuildBothBelow && ribbon >= plan.payload_bytes &&
          shape.ok())) {
      plan.kind = FilterKind::kRibbon;
      plan.payload_bytes = ribbon;
    }
  }
  return plan;
}

absl::StatusOr<Filter> FilterBuilder::Finish() {
  const uint64_t num_keys = num_keys_;
  num_keys_ = 0;
  const uint64_t* const last_end = next_;
  next_ = end_ = nullptr;
  if (fixed_bits_ != nullptr) {
    // Keys went straight in, in batches. A later round (rare) keeps hashes
    // instead, so that no second filter's worth of memory is held before it
    // is needed.
    if (pending_ != nullptr) {
      InsertPending(last_end);
      pending_.reset();
    }
    std::unique_ptr<internal::AlignedBuffer> bits = std::move(fixed_bits_);
    const uint8_t* data = bits->data();
    return Filter(std::move(bits), data, options_.shape, options_.seed,
                  num_keys, internal::KernelsFor(options_.shape.lane_bits));
  }
  std::unique_ptr<internal::HashChunks> hashes = std::move(hashes_);
  if (options_.exact_size) {
    // An exact-size filter sorts its hashes (the fingerprint set) or inserts
    // them in any order: one array. (Exact-size filters are LevelDB's per-block
    // ones, a few hundred keys at most in practice.)
    std::vector<uint64_t> all;
    all.reserve(num_keys);
    if (hashes != nullptr) {
      hashes->Drain(last_end, [&](const uint64_t* h, size_t n) {
        all.insert(all.end(), h, h + n);
      });
    }
    const uint64_t block_bytes =
        internal::ExactSizeBytes(num_keys, options_.bits_per_key);
    const int empty_k = DefaultProbes(options_.bits_per_key);
    if (!options_.fewer_false_positives) {
      return internal::BuildInPlaceFilter(
          all, block_bytes - internal::kInPlaceTrailerBytes, options_.seed,
          empty_k);
    }
    return internal::BuildAccurateFilter(
        &all, block_bytes - internal::kAccurateTrailerBytes, options_.seed,
        empty_k);
  }
  // The blocked filter, its hashes inserted by feed(insert), where
  // insert(hashes, n) puts n of them in.
  auto build_blocked = [&](auto feed) -> absl::StatusOr<Filter> {
    absl::StatusOr<FilterShape> shape = ShapeForKeys(num_keys);
    if (!shape.ok()) return shape.status();
    absl::StatusOr<std::unique_ptr<internal::AlignedBuffer>> bits =
        internal::AlignedBuffer::Create(shape->size_bytes());
    if (!bits.ok()) return bits.status();
    uint8_t* data = (*bits)->data();
    const internal::Kernels* kernels =
        internal::KernelsFor(static_cast<uint32_t>(shape->lane_bits));
    const internal::FilterRef ref =
        internal::BlockedRef(data, *shape, options_.seed);
    feed(
        [&](const uint64_t* h, size_t n) { kernels->insert(ref, data, h, n); });
    return Filter(*std::move(bits), data, *shape, options_.seed, num_keys,
                  kernels);
  };
  const bool build_both = options_.kind == FilterKind::kRibbon &&
                          num_keys > 0 && num_keys < kBuildBothBelow;
  if (options_.kind == FilterKind::kRibbon &&
      (build_both || RibbonWins(options_, num_keys))) {
    // The ribbon sorts its hashes: one array of them, each chunk freed once
    // copied.
    absl::StatusOr<std::unique_ptr<internal::AlignedBuffer>> array =
        internal::AlignedBuffer::Create(sizeof(uint64_t) * num_keys);
    if (!array.ok()) return array.status();
    uint64_t* const all = reinterpret_cast<uint64_t*>((*array)->data());
    size_t copied = 0;
    if (hashes != nullptr) {
      hashes->Drain(last_end, [&](const uint64_t* h, size_t n) {
        std::copy(h, h + n, all + copied);
        copied += n;
      });
    }
    internal::ribbon::RibbonTarget target;
    target.fp_rate = options_.fp_rate;
    target.bits_per_key = options_.bits_per_key;
    absl::StatusOr<Filter> ribbon = internal::ribbon::BuildRibbon(
        absl::MakeSpan(all, num_keys), target, options_.seed);
    if (ribbon.ok() && build_both) {
      // The same hashes (the ribbon build only reorders them).
      absl::StatusOr<Filter> blocked =
          build_blocked([&](auto insert) { insert(all, num_keys); });
      if (!blocked.ok()) return blocked.status();
      return RibbonIsBetter(options_, *ribbon, *blocked) ? std::move(ribbon)
                                                         : std::move(blocked);
    }
    if (ribbon.ok()) return ribbon;
    // No ribbon (a pathological key set, too many keys): the blocked filter
    // of the same hashes, which the failed build left in the array.
    return build_blocked([&](auto insert) { insert(all, num_keys); });
  }
  return build_blocked([&](auto insert) {
    if (hashes == nullptr) return;
    // Each chunk is released once inserted: freed (the filter's pages,
    // touched as they are filled, can reuse the memory) or kept for the
    // next build (src/core/hash_chunks.cc).
    hashes->Drain(last_end, insert);
  });
}

}  // namespace blockbloom
