// The ribbon kind as FilterBuilder and the policies see it: when a ribbon
// is the better filter for a key set (else the blocked kind at the same
// bits_per_key or fp_rate), and what it costs.
#include "src/ribbon/kind.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "blockbloom/level_allocation.h"
#include "blockbloom/sizing.h"
#include "src/core/blocked_build.h"
#include "src/ribbon/builder.h"
#include "src/ribbon/encoding.h"
#include "src/ribbon/sizing.h"

namespace blockbloom::internal::ribbon {
namespace {

// Below this many keys the build makes both kinds and keeps the better one
// (RibbonIsBetter). The estimates are rough for small filters, whose
// layers are a few 64-slot blocks: at 10 bits/key (30 key sets each),
// 1,000 keys estimated 0.122% and built 0.157%, 2,048 keys estimated 0.267%
// and built 0.163%, 5,000 estimated 0.189% and built 0.129%; and at a few
// dozen keys a one-block ribbon (3 columns at 20 keys: 12.5%) loses to the
// blocked kind. So the estimate alone can give small tables (an LSM tree's
// small files, ~400 keys each) the worse kind; both builds of so few keys
// take microseconds.
constexpr uint64_t kBuildBothBelow = 8192;

// Whether a ribbon is the better filter for n keys, by the estimates:
// smaller for an fp_rate, more accurate in a bits_per_key budget. Below a
// few dozen keys the 64-slot minimum of a layer and one column per slot
// make a ribbon the worse one (RocksDB's Ribbon builder makes the same
// check and builds its Bloom filter for small filters).
bool RibbonWins(const FilterOptions& options, uint64_t num_keys) {
  if (num_keys == 0) return true;  // no layers, no bytes
  const bool compact = options.compact_small_filters;
  if (options.fp_rate != 0) {
    absl::StatusOr<FilterShape> blocked =
        ShapeForFpRate(num_keys, options.fp_rate, compact);
    return !blocked.ok() || EstimatedPayloadBytes(num_keys, options.fp_rate) <
                                blocked->size_bytes();
  }
  absl::StatusOr<FilterShape> blocked =
      ShapeForBitsPerKey(num_keys, options.bits_per_key, compact);
  if (!blocked.ok()) return true;
  absl::StatusOr<double> blocked_rate =
      blockbloom::EstimatedFpRate(*blocked, num_keys);
  return !blocked_rate.ok() ||
         EstimatedFpRate(num_keys, options.bits_per_key) < *blocked_rate;
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

// Build() keeps the smaller (or more accurate) of both builds below
// kBuildBothBelow keys; the plan takes the ribbon where its estimate wins,
// as Build() does above that.
uint64_t PlannedBytes(uint64_t num_keys, const FilterOptions& options,
                      uint64_t blocked_bytes) {
  if (num_keys == 0 || !RibbonWins(options, num_keys)) return 0;
  const double rate = options.fp_rate != 0
                          ? options.fp_rate
                          : EstimatedFpRate(num_keys, options.bits_per_key);
  const uint64_t ribbon = EstimatedPayloadBytes(num_keys, rate);
  if (num_keys < kBuildBothBelow && blocked_bytes != 0 &&
      ribbon >= blocked_bytes) {
    return 0;
  }
  return ribbon;
}

absl::StatusOr<Filter> Build(absl::Span<uint64_t> hashes,
                             const FilterOptions& options) {
  const uint64_t num_keys = hashes.size();
  const bool build_both = num_keys > 0 && num_keys < kBuildBothBelow;
  if (!build_both && !RibbonWins(options, num_keys)) {
    return BuildBlocked(hashes, options);
  }
  RibbonTarget target;
  target.fp_rate = options.fp_rate;
  target.bits_per_key = options.bits_per_key;
  absl::StatusOr<Filter> ribbon = BuildRibbon(hashes, target, options.seed);
  // No ribbon (a pathological key set, too many keys): the blocked filter
  // of the same hashes, which the failed build left in the array (it only
  // reorders them).
  if (!ribbon.ok()) return BuildBlocked(hashes, options);
  if (!build_both) return ribbon;
  absl::StatusOr<Filter> blocked = BuildBlocked(hashes, options);
  if (!blocked.ok()) return blocked.status();
  return RibbonIsBetter(options, *ribbon, *blocked) ? std::move(ribbon)
                                                    : std::move(blocked);
}

bool Writes(Encoding encoding) { return encoding == Encoding::kRibbon; }

// A block written by the builder: one layer planned (the layer table's
// entries are few bytes, and the plan is an estimate).
uint64_t BlockBytes(uint64_t payload_bytes, uint64_t seed,
                    const FilterOrigin& origin) {
  return RibbonBlockBytes(payload_bytes, 1, seed, origin);
}

}  // namespace

const KindPlugin kRibbonKind = {
    .kind = FilterKind::kRibbon,
    .name = "ribbon",
    .owns_tag = &IsRibbonTag,
    .open = &OpenByParsing<&ParseBlock, &OpenBlock>,
    .inspect = &InspectByParsing<&ParseBlock>,
    .append = &AppendBlock,
    .writes = &Writes,
    .records_origin = true,
    .check_options = nullptr,  // FilterBuilder's own checks suffice
    .planned_bytes = &PlannedBytes,
    .build = &Build,
    .fp_rate_at = &EstimatedFpRate,
    .block_bytes = &BlockBytes,
};

}  // namespace blockbloom::internal::ribbon

namespace blockbloom {

// The planners' curve of the kind (blockbloom/level_allocation.h), at the
// size they take every kind's at.
double RibbonFpRate(double bits_per_key) {
  if (!(bits_per_key > 0)) return 1;
  return std::min(1.0, internal::ribbon::EstimatedFpRate(
                           internal::kPlanningKeys, bits_per_key));
}

}  // namespace blockbloom
