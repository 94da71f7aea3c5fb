// A filter kind's own operations, which the kind-neutral code calls instead
// of switching on FilterKind, in two tables each kind's folder defines:
// - KindOps, what a Filter of the kind does (its false-positive rate, the
//   probe cache's self-contained copy); its maker hands it to the Filter
//   (FilterAccess::Make). The blocked kind's is here.
// - KindPlugin, what the library does with the kind: read and write its
//   encodings (the tags it owns), build it for FilterBuilder, size and plan
//   it for the policies, name it. src/format/registry.h finds a kind's
//   plug-in by its FilterKind or by a block's tag.
// A new kind adds its two tables, not a case in each caller.
// docs/ARCHITECTURE.md, "A new filter kind".
#ifndef BLOCKBLOOM_SRC_CORE_KIND_H_
#define BLOCKBLOOM_SRC_CORE_KIND_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/internal/filter_ref.h"

namespace blockbloom::internal {

struct KindOps {
  FilterKind kind;
  // The expected false-positive rate of a filter of this kind, `ref` and
  // `shape`, holding `num_keys` keys (Filter::EstimatedFpRate).
  double (*estimated_fp_rate)(const FilterRef& ref, const FilterShape& shape,
                              uint64_t num_keys);
  // A copy that refers to nothing of the filter (the probe cache keeps one
  // per block): the bytes it takes for a filter of `ref` and `bits`, and the
  // copy made at `at` (that many bytes, malloc's 16-byte alignment), as the
  // ref that probes it.
  size_t (*copy_bytes)(const FilterRef& ref, absl::Span<const uint8_t> bits);
  FilterRef (*copy)(const FilterRef& ref, absl::Span<const uint8_t> bits,
                    uint8_t* at);
  // Filter::set_low_bits(), for the kinds that have one (nullptr: 0).
  int (*set_low_bits)(const FilterRef& ref);
};

// A kind as the library's kind-neutral code sees it: the format's entry
// points (blockbloom/format.h), FilterBuilder, the policies' sizing and
// level planning, the names the tools print. Every field is set unless it
// says what nullptr means.
struct KindPlugin {
  FilterKind kind;
  // FilterKindName: lower case, one word ("ribbon").
  const char* name;

  // The format. Whether a block whose last byte is `tag` is this kind's
  // (no two kinds own a tag; docs/FORMAT.md, "The tag").
  bool (*owns_tag)(uint8_t tag);
  // The filter of a block whose tag it owns, checked as `options` ask;
  // `*info` (if not null) set when it opens. DataLoss (damage) or
  // Unimplemented (a later version) with what is wrong, never a crash.
  absl::StatusOr<Filter> (*open)(absl::Span<const uint8_t> block,
                                 const ReadOptions& options, FilterInfo* info);
  // What InspectFilter says of such a block, the same checks.
  absl::StatusOr<FilterInfo> (*inspect)(absl::Span<const uint8_t> block,
                                        const ReadOptions& options);
  // Appends a filter of this kind in options.encoding (kAuto: the kind's
  // choice); InvalidArgument for options it cannot record. AppendFilter
  // has checked that it `writes` the encoding and the origin's range.
  absl::Status (*append)(const Filter& filter, const WriteOptions& options,
                         std::string* dst, WriteStats* stats);
  // Whether `encoding` (not kAuto) is one the kind writes.
  bool (*writes)(Encoding encoding);
  // Whether its encodings record a filter's origin (WriteOptions::origin):
  // AppendFilter refuses an origin for a kind whose do not.
  bool records_origin;

  // FilterBuilder with FilterOptions::kind == kind (nullptr: not a kind the
  // builder is asked for; the exact-size kinds come from
  // FilterOptions::exact_size). The options' checks beyond FilterBuilder's
  // own (bits_per_key, fp_rate in range; no exact_size, no fixed shape for
  // a kind other than kBlocked): InvalidArgument (nullptr: none).
  absl::Status (*check_options)(const FilterOptions& options);
  // The bytes of bits the build of `num_keys` keys would make (an estimate
  // is fine), or 0 where the build would make the blocked kind instead,
  // whose size is `blocked_bytes` (0 if none can be sized).
  uint64_t (*planned_bytes)(uint64_t num_keys, const FilterOptions& options,
                            uint64_t blocked_bytes);
  // The filter of `hashes` (distinct, any order; the build may reorder
  // them, keeping the multiset), or a blocked one of the same options
  // (BuildBlocked) where this kind is the worse or cannot be built.
  absl::StatusOr<Filter> (*build)(absl::Span<uint64_t> hashes,
                                  const FilterOptions& options);

  // Planning: the false-positive rate `num_keys` keys get in
  // `bits_per_key` bits of this kind (its rate curve), and the bytes a
  // block of `payload_bytes` bytes of bits takes once encoded with this
  // seed and origin (nullptr for both: the policies do not plan the kind).
  double (*fp_rate_at)(uint64_t num_keys, double bits_per_key);
  uint64_t (*block_bytes)(uint64_t payload_bytes, uint64_t seed,
                          const FilterOrigin& origin);
};

// The table size at which the planners take a kind's rate curve
// (KindPlugin::fp_rate_at; src/levels, and RibbonFpRate in
// src/ribbon/kind.cc): from ~1,000 keys on
// the rates hardly depend on it, and a fixed size gives every table of a
// level the same rate.
inline constexpr uint64_t kPlanningKeys = uint64_t{1} << 20;

// A kind's KindPlugin::open and ::inspect from its encodings' two steps:
// `parse` (block, options) -> StatusOr<P>, where P holds the block's
// FilterInfo as `info`, and `open_parsed` (const P&) -> StatusOr<Filter>.
template <auto parse, auto open_parsed>
absl::StatusOr<Filter> OpenByParsing(absl::Span<const uint8_t> block,
                                     const ReadOptions& options,
                                     FilterInfo* info) {
  auto parsed = parse(block, options);
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<Filter> filter = open_parsed(*parsed);
  if (filter.ok() && info != nullptr) *info = parsed->info;
  return filter;
}
template <auto parse>
absl::StatusOr<FilterInfo> InspectByParsing(absl::Span<const uint8_t> block,
                                            const ReadOptions& options) {
  auto parsed = parse(block, options);
  if (!parsed.ok()) return parsed.status();
  return parsed->info;
}

// The blocked kind's: blocks of 16 lanes (layout.h), the core's own.
extern const KindOps kBlockedOps;

// The copy of a kind whose probe reads its bits alone: the bits.
size_t BitsCopyBytes(const FilterRef& ref, absl::Span<const uint8_t> bits);
FilterRef CopyBits(const FilterRef& ref, absl::Span<const uint8_t> bits,
                   uint8_t* at);

// A kind's probe data (FilterRef::view) as the type its folder declares.
template <typename View>
inline const View& ViewOf(const FilterRef& f) {
  return *static_cast<const View*>(f.view);
}

}  // namespace blockbloom::internal

#endif  // BLOCKBLOOM_SRC_CORE_KIND_H_
