// FilterBuilder (blockbloom/filter.h): collects the keys' hashes, then builds
// the filter its options ask for. It builds the blocked kind (src/core)
// itself, a hash chunk at a time, and the exact-size filters of one data
// block each (src/exact_size); any other kind (FilterOptions::kind) through
// its plug-in (src/format/registry.h) from one array of the hashes.
#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "blockbloom/filter.h"
#include "src/core/aligned_buffer.h"
#include "src/core/blocked_build.h"
#include "src/core/hash_chunks.h"
#include "src/core/key_hash.h"
#include "src/core/layout.h"
#include "src/core/probe.h"
#include "src/exact_size/exact_size.h"
#include "src/exact_size/in_place.h"
#include "src/format/registry.h"

namespace blockbloom {
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
  if (options.kind != FilterKind::kBlocked) {
    const internal::KindPlugin* plugin = internal::FindKind(options.kind);
    if (plugin == nullptr || plugin->build == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "FilterOptions::kind must be a kind FilterBuilder builds (",
          internal::BuildKindNames(), "), not ", static_cast<int>(options.kind),
          " (exact-size kinds are chosen by exact_size)"));
    }
    // What FilterBuilder itself builds from these options comes before
    // any other kind: none of them is exact-size or of a fixed shape.
    if (exact_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a ", plugin->name,
          " filter (FilterOptions::kind) is not an "
          "exact-size filter: unset exact_size, or build kind kBlocked"));
    }
    if (options.shape.num_blocks != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a ", plugin->name,
          " filter (FilterOptions::kind) is sized by "
          "bits_per_key or fp_rate, not a fixed shape: unset shape, or build "
          "kind kBlocked"));
    }
    if (plugin->check_options != nullptr) {
      if (absl::Status s = plugin->check_options(options); !s.ok()) return s;
    }
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
  return internal::BlockedShapeFor(num_keys, options_);
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
  // Another kind plans its own bytes, or the blocked kind's.
  if (options_.kind != FilterKind::kBlocked) {
    const internal::KindPlugin* plugin = internal::FindKind(options_.kind);
    const uint64_t bytes =
        plugin != nullptr && plugin->planned_bytes != nullptr
            ? plugin->planned_bytes(num_keys, options_,
                                    shape.ok() ? plan.payload_bytes : 0)
            : 0;
    if (bytes != 0) {
      plan.kind = options_.kind;
      plan.payload_bytes = bytes;
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
    const int empty_k = internal::DefaultProbes(options_.bits_per_key);
    if (!options_.fewer_false_positives) {
      return internal::BuildInPlaceFilter(
          all, block_bytes - internal::kInPlaceTrailerBytes, options_.seed,
          empty_k);
    }
    return internal::BuildAccurateFilter(
        &all, block_bytes - internal::kAccurateTrailerBytes, options_.seed,
        empty_k);
  }
  if (options_.kind != FilterKind::kBlocked) {
    // Another kind (Create() checked it has a build) builds from one array
    // of the hashes, each chunk freed once copied.
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
    return internal::FindKind(options_.kind)
        ->build(absl::MakeSpan(all, num_keys), options_);
  }
  // The blocked filter, each chunk released once inserted: freed (the
  // filter's pages, touched as they are filled, can reuse the memory) or
  // kept for the next build (src/core/hash_chunks.cc).
  return internal::BuildBlockedFrom(num_keys, options_, [&](auto insert) {
    if (hashes != nullptr) hashes->Drain(last_end, insert);
  });
}

}  // namespace blockbloom
