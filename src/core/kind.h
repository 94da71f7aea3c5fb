// A filter kind's own operations, which the kind-neutral code calls instead
// of switching on FilterKind: Filter's false-positive rate, the probe
// cache's self-contained copy. Each kind defines one table in its folder
// (the blocked kind's is here) and its maker hands it to the Filter
// (FilterAccess::Make), so a new kind adds a table, not a case in each
// caller. docs/ARCHITECTURE.md, "A new filter kind".
#ifndef BLOCKBLOOM_SRC_CORE_KIND_H_
#define BLOCKBLOOM_SRC_CORE_KIND_H_

#include <cstddef>
#include <cstdint>

#include "absl/types/span.h"
#include "blockbloom/filter.h"
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
