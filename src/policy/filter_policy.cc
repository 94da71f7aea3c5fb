#include "blockbloom/filter_policy.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/sizing.h"
#include "src/exact_size/in_place.h"
#include "src/format/registry.h"
#include "src/policy/key_may_match.h"

namespace blockbloom {
namespace {

ReadOptions ReadOptionsOf(const FilterPolicy::Options& options) {
  ReadOptions read;
  read.verify_checksum = options.verify_checksum;
  read.seed = options.seed;
  // An exact-size policy writes in-place blocks (or did, before the accuracy
  // mode was chosen), whose integrity is the engine's block checksum.
  read.allow_in_place = options.exact_size;
  return read;
}

// The smallest filter block that answers "may contain" for every key: one
// block of 1-bit lanes, all set. Written when a real filter cannot be built.
absl::Status AppendMatchAll(std::string* dst) {
  FilterOptions options;
  options.shape = {1, 1, 1};
  absl::StatusOr<FilterBuilder> builder = FilterBuilder::Create(options);
  if (!builder.ok()) return builder.status();
  // Set every bit: one key per lane does it for 1-bit lanes.
  for (uint64_t h = 0; h < 4096; ++h) builder->AddHash(h * 0x9e3779b97f4a7c15);
  absl::StatusOr<Filter> all = builder->Finish();
  if (!all.ok()) return all.status();
  return AppendFilter(*all, {}, dst);
}

// The rate of the blocked kind at `bits_per_key` on a large table, the
// "Bloom-equivalent" rate a ribbon level is built for
// (LevelOptions::ribbon_from_level). A fixed table size keeps the rate the same
// for every table of a level: from ~1000 keys on, where the ribbon is built,
// the blocked kind's rate hardly depends on n. 0 if the shape cannot be
// computed (the caller builds the blocked kind).
double BloomEquivalentFpRate(double bits_per_key) {
  constexpr uint64_t kReferenceKeys = internal::kPlanningKeys;
  absl::StatusOr<FilterShape> shape =
      ShapeForBitsPerKey(kReferenceKeys, bits_per_key);
  if (!shape.ok()) return 0;
  absl::StatusOr<double> rate = EstimatedFpRate(*shape, kReferenceKeys);
  return rate.ok() && *rate > 0 && *rate < 1 ? *rate : 0;
}

}  // namespace

FilterPolicy::FilterPolicy(const Options& options)
    : options_(options),
      cache_(ReadOptionsOf(options_), options_.probe_cache_bytes),
      in_place_tag_end_(options_.exact_size ? internal::kInPlaceTag + 16 : 0) {}

absl::StatusOr<FilterPolicy> FilterPolicy::Create(const Options& options) {
  if (!std::isfinite(options.bits_per_key) || options.bits_per_key <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("bits_per_key must be a positive finite number, got ",
                     options.bits_per_key));
  }
  if (options.levels.ribbon_from_level < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("ribbon_from_level must be >= -1 (-1: ribbon everywhere; "
                     "kNoRibbon: never), got ",
                     options.levels.ribbon_from_level));
  }
  FilterPolicy policy(options);
  if (options.levels.level_aware) {
    LevelAllocator::Options level;
    level.bits_per_key = options.bits_per_key;
    level.level_size_multiplier = options.levels.level_size_multiplier;
    level.moved_fraction = options.levels.level_moved_fraction;
    if (policy.PlansKinds()) {
      // Both kinds at their real rates. The kind listed first is the one of
      // files of unknown level (Choose): the ribbon only with -1.
      KindCurve blocked;
      KindCurve ribbon;
      ribbon.kind = FilterKind::kRibbon;
      ribbon.first_level = std::max(options.levels.ribbon_from_level, 0);
      level.kinds = options.levels.ribbon_from_level < 0
                        ? std::vector<KindCurve>{ribbon, blocked}
                        : std::vector<KindCurve>{blocked, ribbon};
    }
    absl::StatusOr<LevelAllocator> allocator = LevelAllocator::Create(level);
    if (!allocator.ok()) return allocator.status();
    policy.allocator_ =
        std::make_shared<const LevelAllocator>(*std::move(allocator));
  }
  return policy;
}

FilterPolicy::Builder FilterPolicy::NewBuilder() const {
  return NewBuilderWithBits(options_.bits_per_key);
}

FilterPolicy::Builder FilterPolicy::NewBuilder(const LevelHint& hint) const {
  return NewBuilderWithBits(BitsPerKey(hint), KindFor(hint));
}

bool FilterPolicy::PlansKinds() const {
  return options_.levels.level_aware &&
         options_.levels.ribbon_saves ==
             LevelOptions::RibbonSaving::kFalseReads &&
         options_.levels.ribbon_from_level != LevelOptions::kNoRibbon &&
         !options_.exact_size;
}

FilterKind FilterPolicy::KindFor(const LevelHint& hint) const {
  if (allocator_ && PlansKinds() &&
      hint.compaction == LevelHint::Compaction::kLeveled && hint.level >= 0) {
    return allocator_->Choose(hint).kind;
  }
  return !options_.exact_size && hint.level >= options_.levels.ribbon_from_level
             ? FilterKind::kRibbon
             : FilterKind::kBlocked;
}

double FilterPolicy::BitsPerKey(const LevelHint& hint) const {
  return allocator_ ? allocator_->BitsPerKey(hint) : options_.bits_per_key;
}

FilterPolicy::Builder FilterPolicy::NewBuilderWithBits(double bits_per_key,
                                                       FilterKind kind) const {
  FilterOptions options;
  options.bits_per_key =
      std::isfinite(bits_per_key)
          ? std::clamp(bits_per_key, LevelAllocator::kMinBitsPerKey,
                       LevelAllocator::kMaxBitsPerKey)
          : options_.bits_per_key;
  options.seed = options_.seed;
  if (kind != FilterKind::kBlocked && !options_.exact_size) {
    // Another kind (a ribbon), at its own bits (LevelOptions::ribbon_saves
    // kFalseReads) or at the blocked kind's rate at these bits; tables too
    // small for it get the blocked kind (FilterOptions::kind).
    FilterOptions other;
    other.kind = kind;
    other.seed = options_.seed;
    bool sized = true;
    if (options_.levels.ribbon_saves ==
        LevelOptions::RibbonSaving::kFalseReads) {
      other.bits_per_key = options.bits_per_key;
    } else {
      other.fp_rate = BloomEquivalentFpRate(options.bits_per_key);
      sized = other.fp_rate > 0;
    }
    if (sized) {
      absl::StatusOr<FilterBuilder> builder = FilterBuilder::Create(other);
      if (builder.ok()) return Builder(*std::move(builder));
    }
  }
  options.exact_size = options_.exact_size;
  options.fewer_false_positives = options_.fewer_false_positives;
  // Create() validated bits_per_key, the only thing that can fail here.
  return Builder(*FilterBuilder::Create(options));
}

void FilterPolicy::Builder::set_bits_per_key(double bits_per_key) {
  if (!std::isfinite(bits_per_key)) return;
  const double bits = std::clamp(bits_per_key, LevelAllocator::kMinBitsPerKey,
                                 LevelAllocator::kMaxBitsPerKey);
  // A builder made for a rate (a ribbon standing for the blocked kind's
  // rate at its bits) takes the rate of the new bits.
  if (builder_.options_.fp_rate != 0) {
    const double rate = BloomEquivalentFpRate(bits);
    if (rate > 0) builder_.SetSize(bits, rate);
    return;
  }
  builder_.SetSize(bits, 0);
}

uint64_t FilterPolicy::Builder::EstimatedBytes(uint64_t num_keys) const {
  const FilterBuilder::Plan plan = builder_.PlanFor(num_keys);
  return internal::FindKind(plan.kind)->block_bytes(
      plan.payload_bytes, builder_.options_.seed, origin_);
}

double FilterPolicy::Builder::EstimatedFpRate(uint64_t num_keys,
                                              uint64_t bytes) const {
  if (num_keys == 0) return 0;
  const FilterBuilder::Plan plan = builder_.PlanFor(num_keys);
  // The footer's share, as planned; the rest holds the keys.
  const uint64_t overhead = EstimatedBytes(num_keys) - plan.payload_bytes;
  if (bytes <= overhead) return 1;
  if (plan.kind == FilterKind::kBlocked) {
    // The planned shape's lanes and k, in these bytes.
    FilterShape shape = plan.shape;
    shape.num_blocks = (bytes - overhead) / (2 * uint64_t(shape.lane_bits));
    if (shape.num_blocks == 0) return 1;
    absl::StatusOr<double> rate = blockbloom::EstimatedFpRate(shape, num_keys);
    return rate.ok() ? *rate : 1;
  }
  const double bits_per_key = 8.0 * static_cast<double>(bytes - overhead) /
                              static_cast<double>(num_keys);
  return internal::FindKind(plan.kind)->fp_rate_at(num_keys, bits_per_key);
}

// The kinds whose encodings record an origin get it: blocks of exact-size
// filters (engines with a filter per data block) are written without it.
WriteOptions FilterPolicy::Builder::WriteOptionsFor(
    const Filter& filter) const {
  WriteOptions write;
  if (internal::FindKind(filter.kind())->records_origin) write.origin = origin_;
  return write;
}

absl::Status FilterPolicy::Builder::Finish(std::string* dst,
                                           WriteStats* stats) {
  const size_t start = dst->size();
  absl::StatusOr<Filter> filter = builder_.Finish();
  absl::Status status =
      filter.ok() ? AppendFilter(*filter, WriteOptionsFor(*filter), dst, stats)
                  : filter.status();
  if (!status.ok()) {
    dst->resize(start);
    if (absl::Status s = AppendMatchAll(dst); !s.ok()) return s;
  }
  return status;
}

Filter FilterPolicy::NewReader(absl::Span<const uint8_t> block,
                               absl::Status* error) const {
  return OpenFilterOrMatchAll(block, cache_.read, error);
}

Filter FilterPolicy::NewReader(absl::Span<const uint8_t> block,
                               absl::Status* error, FilterInfo* info) const {
  return OpenFilterOrMatchAll(block, cache_.read, error, info);
}

bool FilterPolicy::KeyMayMatch(std::string_view key,
                               absl::Span<const uint8_t> block) const {
  return internal::PolicyKeyMayMatch(*this, key, block);
}

}  // namespace blockbloom
